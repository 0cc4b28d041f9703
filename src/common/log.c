/*
 * log.c - the single place torchfl writes diagnostics to stderr.
 *
 * Each message is formatted into one buffer and written with one write(2)
 * so lines from several threads never interleave.
 */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

int tfl_log_level = TFL_LOG_WARN;

int tfl_log_parse_level(const char *s)
{
    static const char *names[] = { "error", "warn", "info", "debug", "trace" };
    if (!s || !*s)
        return -1;
    if (s[0] >= '0' && s[0] <= '4' && s[1] == '\0')
        return s[0] - '0';
    for (int i = 0; i < 5; i++)
        if (strcasecmp(s, names[i]) == 0)
            return i;
    if (strcasecmp(s, "warning") == 0)
        return TFL_LOG_WARN;
    return -1;
}

void tfl_log_set_level(int level)
{
    if (level >= TFL_LOG_ERROR && level <= TFL_LOG_TRACE)
        tfl_log_level = level;
}

void tfl_log_init(void)
{
    const char *env = getenv("TORCHFL_LOG");
    int lvl = tfl_log_parse_level(env);
    if (lvl >= 0)
        tfl_log_level = lvl;
    else if (env && *env)
        tfl_log_write(TFL_LOG_WARN, "TORCHFL_LOG=%s is not a level "
                      "(error|warn|info|debug|trace); using warn", env);
}

void tfl_log_write(int level, const char *fmt, ...)
{
    static const char *tag[] = { "error: ", "warning: ", "", "debug: ", "trace: " };
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "torchfl: %s",
                     (level >= 0 && level <= 4) ? tag[level] : "");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof buf - 2)
        len = sizeof buf - 2;
    /* keep it one line whatever the message carried */
    for (size_t i = (size_t)n; i < len; i++)
        if (buf[i] == '\n')
            buf[i] = ' ';
    buf[len++] = '\n';
    ssize_t w = write(2, buf, len);
    (void)w;
}
