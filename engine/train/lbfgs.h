/* engine/train/lbfgs.h: L-BFGS and OWL-QN whose whole state is the caller's (lbfgs.c), so that a
 * run can be written to a checkpoint between two iterations and continued from it.
 *
 * The algorithm, its parameters, line searches (More-Thuente; backtracking to the Armijo, Wolfe
 * or strong Wolfe condition; OWL-QN's projected backtracking), stopping tests and return codes
 * are those of liblbfgs 1.10 (Okazaki), with every floating-point operation in the same order,
 * so that the iterates are the same doubles liblbfgs makes from the same start and objective
 * (tests/train_ckpt.sh compares the models of both). */
#ifndef VT_TRAIN_LBFGS_H
#define VT_TRAIN_LBFGS_H

#include <stdint.h>

/* What a run ends with: liblbfgs's codes, with its numbers and meanings. */
enum {
  VT_LBFGS_SUCCESS = 0, /* ||g|| / max(1, ||x||) <= epsilon */
  VT_LBFGS_STOP = 1,    /* the delta test over `past` iterations */
  VT_LBFGS_ALREADY_MINIMIZED = 2,
  VT_LBFGSERR_LOGICERROR = -1023,
  VT_LBFGSERR_OUTOFMEMORY = -1022,
  VT_LBFGSERR_OUTOFINTERVAL = -1003,
  VT_LBFGSERR_INCORRECT_TMINMAX = -1002,
  VT_LBFGSERR_ROUNDING_ERROR = -1001,
  VT_LBFGSERR_MINIMUMSTEP = -1000,
  VT_LBFGSERR_MAXIMUMSTEP = -999,
  VT_LBFGSERR_MAXIMUMLINESEARCH = -998,
  VT_LBFGSERR_MAXIMUMITERATION = -997,
  VT_LBFGSERR_WIDTHTOOSMALL = -996,
  VT_LBFGSERR_INVALIDPARAMETERS = -995,
  VT_LBFGSERR_INCREASEGRADIENT = -994
};

/* Line searches (liblbfgs's numbering). */
enum {
  VT_LBFGS_MORETHUENTE = 0,
  VT_LBFGS_ARMIJO = 1,
  VT_LBFGS_WOLFE = 2,
  VT_LBFGS_STRONG_WOLFE = 3
};

/* The objective at x: returns f(x) and writes its gradient into g (n values). */
typedef double (*vt_lbfgs_eval_fn)(void *ctx, const double *x, double *g, int64_t n, double step);

/* After iteration k (from 1) with its objective, norms, step and line-search evaluations ls;
 * nonzero stops the run, which returns that value. */
typedef int (*vt_lbfgs_progress_fn)(void *ctx, const double *x, const double *g, double fx,
                                    double xnorm, double gnorm, double step, int64_t n, int k,
                                    int ls);

typedef struct vt_lbfgs {
  /* parameters (vt_lbfgs_init sets liblbfgs's defaults) */
  int64_t n;
  int m;              /* corrections kept */
  double epsilon;     /* the gradient test */
  int past;           /* the delta test's distance (0: none) */
  double delta;       /* and its relative decrease */
  int max_iterations; /* 0: none */
  int linesearch;     /* VT_LBFGS_MORETHUENTE.. (OWL-QN: always its backtracking) */
  int max_linesearch; /* evaluations per line search */
  double min_step, max_step, ftol, wolfe, gtol, xtol;
  double c1; /* OWL-QN's L1 weight over every variable (0: plain L-BFGS) */
  /* state: what a checkpoint keeps (vt_lbfgs_state_vectors) */
  double *x, *g, *d; /* the iterate, its gradient, the next direction */
  double *s, *y;     /* m x n: the corrections, slot `end` next */
  double *ys;        /* m: y's . s's */
  double *pf;        /* past: the objectives of the last iterations */
  double fx, step;   /* the objective at x (with its L1 term); the next step */
  int k, end;        /* the next iteration (1 before the first); the next slot */
  int started;       /* the start was evaluated (the state holds an iterate) */
  /* scratch */
  double *xp, *gp, *pg, *w, *alpha;
} vt_lbfgs;

/* liblbfgs's default parameters for n variables, no memory yet. */
void vt_lbfgs_init(vt_lbfgs *L, int64_t n);

/* Allocates the state and scratch for L's n and m (after the parameters are set; x zero). 0, or
 * -1 when out of memory. */
int vt_lbfgs_alloc(vt_lbfgs *L);

/* Frees what vt_lbfgs_alloc made. */
void vt_lbfgs_free(vt_lbfgs *L);

/* Minimises from L->x (not started: the start is evaluated first, as liblbfgs does; started:
 * continues with iteration L->k along L->d) until a test stops it or `progress` returns
 * nonzero, calling `boundary` (may be NULL) after every iteration that goes on, when the state
 * is whole (the place to write a checkpoint: a nonzero return stops the run with it). Returns a
 * VT_LBFGS code (or what a callback returned); L->x and L->fx are the result (the last point
 * accepted, after a line search's failure). */
int vt_lbfgs_run(vt_lbfgs *L, vt_lbfgs_eval_fn eval, vt_lbfgs_progress_fn progress,
                 int (*boundary)(void *ctx, const vt_lbfgs *L), void *ctx);

#endif
