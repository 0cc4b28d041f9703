/*
 * log.h - one-line logging, prefixed "torchfl:", with levels.
 *
 * The level comes from TORCHFL_LOG (error|warn|info|debug|trace or 0-4),
 * read once.  Logging is cheap when disabled: the level test is a load.
 */
#ifndef TFL_LOG_H
#define TFL_LOG_H

enum { TFL_LOG_ERROR = 0, TFL_LOG_WARN = 1, TFL_LOG_INFO = 2,
       TFL_LOG_DEBUG = 3, TFL_LOG_TRACE = 4 };

extern int tfl_log_level;
void tfl_log_init(void);
void tfl_log_set_level(int level);
int tfl_log_parse_level(const char *s); /* -1 if unknown */
void tfl_log_write(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define tfl_log(lvl, ...) \
    do { if ((lvl) <= tfl_log_level) tfl_log_write((lvl), __VA_ARGS__); } while (0)
#define tfl_error(...) tfl_log(TFL_LOG_ERROR, __VA_ARGS__)
#define tfl_warn(...)  tfl_log(TFL_LOG_WARN, __VA_ARGS__)
#define tfl_info(...)  tfl_log(TFL_LOG_INFO, __VA_ARGS__)
#define tfl_debug(...) tfl_log(TFL_LOG_DEBUG, __VA_ARGS__)

#endif
