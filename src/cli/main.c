/* main.c - placeholder until the CLI lands. */
#include <stdio.h>
int main(void) { puts("torchfl"); return 0; }
