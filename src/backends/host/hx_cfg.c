/*
 * hx_cfg.c - reconvergence points for divergent branches.
 *
 * A warp that splits at a conditional branch must run both sides and meet
 * again where every path from the branch joins: the immediate
 * post-dominator of the branch's basic block.  We build the control-flow
 * graph of a decoded function (a virtual EXIT node collects ret/exit/trap,
 * so loops with break and early returns are handled), compute
 * post-dominators with the Cooper-Harvey-Kennedy iterative algorithm on the
 * reversed graph, and store in each branch the first pc of that block
 * (or -1 when the paths only meet at function exit).
 */
#include "hx_ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ends_block(const hx_insn *in)
{
    return in->op == OP_BRA || in->op == OP_RET || in->op == OP_EXIT || in->op == OP_TRAP;
}

int hx_cfg_reconvergence(hx_func *f, char *err, size_t errlen)
{
    int n = f->ncode;
    if (n == 0) return 0;
    int *leader = calloc((size_t)n + 1, sizeof *leader);
    int *blk = malloc((size_t)n * sizeof *blk);
    if (!leader || !blk) { free(leader); free(blk); snprintf(err, errlen, "out of memory"); return -1; }
    leader[0] = 1;
    for (int pc = 0; pc < n; pc++) {
        const hx_insn *in = &f->code[pc];
        if (in->op == OP_BRA) {
            if (in->target < 0 || in->target > n) {
                free(leader); free(blk);
                snprintf(err, errlen, "PTX line %d: branch target out of range", in->line);
                return -1;
            }
            if (in->target < n) leader[in->target] = 1;
        }
        if (ends_block(in) && pc + 1 < n) leader[pc + 1] = 1;
    }
    int nb = 0;
    for (int pc = 0; pc < n; pc++) { if (leader[pc]) nb++; blk[pc] = nb - 1; }
    int *bstart = malloc((size_t)nb * sizeof *bstart);
    int *bend = malloc((size_t)nb * sizeof *bend);
    /* at most two successors per block */
    int *succ = malloc((size_t)nb * 2 * sizeof *succ);
    int *nsucc = calloc((size_t)nb, sizeof *nsucc);
    int EXIT = nb;
    if (!bstart || !bend || !succ || !nsucc) goto oom;
    for (int pc = 0; pc < n; pc++) {
        if (leader[pc]) bstart[blk[pc]] = pc;
        bend[blk[pc]] = pc;
    }
    for (int b = 0; b < nb; b++) {
        const hx_insn *in = &f->code[bend[b]];
        int guarded = in->gpred != HX_NOREG;
        int fall = bend[b] + 1 < n ? blk[bend[b] + 1] : EXIT;
        int *s = &succ[2 * b];
        if (in->op == OP_BRA) {
            s[nsucc[b]++] = in->target < n ? blk[in->target] : EXIT;
            if (guarded && s[0] != fall) s[nsucc[b]++] = fall;
        } else if (in->op == OP_RET || in->op == OP_EXIT || in->op == OP_TRAP) {
            s[nsucc[b]++] = EXIT;
            if (guarded && fall != EXIT) s[nsucc[b]++] = fall;
        } else {
            s[nsucc[b]++] = fall;
        }
    }
    /* predecessors (CSR) */
    int *pcount = calloc((size_t)nb + 2, sizeof *pcount);
    int *pidx = NULL, *plist = NULL;
    if (!pcount) goto oom;
    for (int b = 0; b < nb; b++)
        for (int k = 0; k < nsucc[b]; k++) pcount[succ[2 * b + k] + 1]++;
    for (int i = 1; i <= nb + 1; i++) pcount[i] += pcount[i - 1];
    pidx = malloc(((size_t)nb + 2) * sizeof *pidx);
    plist = malloc(((size_t)pcount[nb + 1] + 1) * sizeof *plist);
    if (!pidx || !plist) { free(pcount); free(pidx); free(plist); goto oom; }
    memcpy(pidx, pcount, ((size_t)nb + 2) * sizeof *pidx);
    for (int b = 0; b < nb; b++)
        for (int k = 0; k < nsucc[b]; k++) {
            int s = succ[2 * b + k];
            plist[pidx[s]++] = b;
        }
    /* postorder of the reversed graph from EXIT (iterative DFS) */
    int N = nb + 1;
    int *po = malloc((size_t)N * sizeof *po);       /* node -> postorder number */
    int *order = malloc((size_t)N * sizeof *order); /* postorder number -> node */
    int *stk = malloc((size_t)N * sizeof *stk);
    int *it = calloc((size_t)N, sizeof *it);
    int *idom = malloc((size_t)N * sizeof *idom);
    if (!po || !order || !stk || !it || !idom) {
        free(po); free(order); free(stk); free(it); free(idom);
        free(pcount); free(pidx); free(plist); goto oom;
    }
    for (int i = 0; i < N; i++) { po[i] = -1; idom[i] = -1; }
    int cnt = 0, sp = 0;
    char *vis = calloc((size_t)N, 1);
    if (!vis) { free(po); free(order); free(stk); free(it); free(idom); free(pcount); free(pidx); free(plist); goto oom; }
    stk[sp++] = EXIT; vis[EXIT] = 1;
    while (sp) {
        int v = stk[sp - 1];
        int beg = pcount[v], end = pcount[v + 1];
        if (beg + it[v] < end) {
            int w = plist[beg + it[v]++];
            if (!vis[w]) { vis[w] = 1; stk[sp++] = w; }
        } else {
            po[v] = cnt; order[cnt++] = v; sp--;
        }
    }
    idom[EXIT] = EXIT;
    int changed = 1;
    while (changed) {
        changed = 0;
        for (int i = cnt - 2; i >= 0; i--) {      /* reverse postorder, skip EXIT */
            int b = order[i];
            int nd = -1;
            for (int k = 0; k < nsucc[b]; k++) {
                int s = succ[2 * b + k];
                if (po[s] < 0 || idom[s] < 0) continue;
                if (nd < 0) { nd = s; continue; }
                int a = s, c = nd;
                while (a != c) {
                    while (po[a] < po[c]) a = idom[a];
                    while (po[c] < po[a]) c = idom[c];
                }
                nd = a;
            }
            if (nd >= 0 && idom[b] != nd) { idom[b] = nd; changed = 1; }
        }
    }
    for (int pc = 0; pc < n; pc++) {
        hx_insn *in = &f->code[pc];
        if (in->op != OP_BRA) continue;
        int b = blk[pc];
        int ip = po[b] >= 0 ? idom[b] : EXIT;   /* never reaches exit: meet at exit */
        in->rpc = (ip < 0 || ip == EXIT) ? -1 : bstart[ip];
    }
    free(vis); free(po); free(order); free(stk); free(it); free(idom);
    free(pcount); free(pidx); free(plist);
    free(leader); free(blk); free(bstart); free(bend); free(succ); free(nsucc);
    return 0;
oom:
    free(leader); free(blk); free(bstart); free(bend); free(succ); free(nsucc);
    snprintf(err, errlen, "out of memory");
    return -1;
}
