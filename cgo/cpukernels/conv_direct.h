/*
 * The direct float32 convolution (conv_direct.c, whose opening comment
 * describes the algorithm, and conv_wgrad.c), shared between its drivers
 * and its per-instruction-set kernels (conv_direct_avx512.c,
 * conv_direct_avx2.c, conv_wgrad_avx512.c). Not part of the package's API
 * (cpu_kernels.h).
 *
 * The output channels of a group are cut into blocks of up to CD_BLOCK
 * channels, and its positions (oi*ow + oj, flattened) into chunks of
 * CD_CHUNK. One job computes one chunk of one block for one image and
 * group.
 */
#ifndef MINDTORCH_CONV_DIRECT_H
#define MINDTORCH_CONV_DIRECT_H

#include <stdint.h>

#include "cpu_kernels.h"

#define CD_BLOCK 64 /* output channels per block, at most */
#define CD_CHUNK 48 /* positions per job */

typedef struct {
  const float *x;    /* the input [n][c][ih][iw] */
  float *xpad;       /* nbuf buffers of one padded image group [cg][hp][wp] */
  const float *w;    /* the packed weights (pack_weights in conv_direct.c) */
  const float *bias; /* [oc], or NULL */
  float *out;        /* [n][oc][oh][ow] */
  int64_t c, oc;     /* input and output channels */
  int64_t cg, og;    /* per group */
  int64_t ogp;       /* og rounded up to a multiple of 16 */
  int64_t ih, iw, pt, pl, padded, nbuf;
  int64_t kh, kw, sh, sw, hp, wp, oh, ow; /* hp = (oh-1)*sh + kh, wp = (ow-1)*sw + kw */
  int64_t groups, blocks, chunks; /* blocks per group, chunks per image */
} cd_job;

/* The channels of block b of a job: its first and how many (a multiple of
 * 16, the last block of a group padded with zero weights). */
static inline int64_t cd_block_start(int64_t b) { return b * CD_BLOCK; }
static inline int64_t cd_block_width(const cd_job *j, int64_t b) {
  int64_t w = j->ogp - b * CD_BLOCK;
  return w < CD_BLOCK ? w : CD_BLOCK;
}

/* cd_positions sets xp[0..np) to the input windows of output positions
 * l0.. of the padded image group at x (positions past the last repeat it). */
static inline void cd_positions(const cd_job *j, const float *x, int64_t l0, int np, const float **xp) {
  const int64_t last = j->oh * j->ow - 1;
  int64_t l = l0 < last ? l0 : last;
  int64_t oi = l / j->ow, oj = l % j->ow;
  for (int p = 0; p < np; p++) {
    xp[p] = x + oi * j->sh * j->wp + oj * j->sw;
    if (l < last) {
      l++;
      if (++oj == j->ow) {
        oj = 0;
        oi++;
      }
    }
  }
}

/* cd_align rounds the packed weights' scratch up to a cache line, so that
 * no vector load of them straddles two. */
static inline float *cd_align(float *p) { return (float *)(((uintptr_t)p + 63) & ~(uintptr_t)63); }

/* cd_prepare checks p and fills the geometry of j, with the input x and
 * xpad_len floats of padding buffers at xpad. */
int cd_prepare(const mt_conv_direct_params *p, const float *x, float *xpad, int64_t xpad_len, cd_job *j);

/* cd_image is the padded input of group g of image n, [cg][hp][wp], of
 * which the caller reads channels [c0, c1): in x itself when the
 * convolution pads nothing, else copied into the buffer of the share
 * (which must be below j->nbuf), fresh on the share's first image of the
 * call (whose padding is then zeroed). */
const float *cd_image(const cd_job *j, int share, int64_t n, int64_t g, int fresh, int64_t c0, int64_t c1);

/* CD_MIN_SHARE is the fewest multiply-adds (some 10 µs) worth a share of
 * their own: for less, waking and waiting for another thread costs about
 * what it saves (the convolutions of small networks are that small). */
#define CD_MIN_SHARE (1 << 20)

/* cd_grain is the grain for mt_parallel of jobs of per multiply-adds each:
 * shares of at least CD_MIN_SHARE, and at most nbuf of them, one padding
 * buffer each. */
static inline int64_t cd_grain(const cd_job *j, int64_t jobs, int64_t per) {
  const int64_t grain = 1 + CD_MIN_SHARE / (per > 0 ? per : 1);
  if (!j->padded) return grain;
  const int64_t least = (jobs + j->nbuf - 1) / j->nbuf;
  return grain > least ? grain : least;
}

/* cd_store writes the sums s [CD_CHUNK][obw] of channels ob.. and positions
 * l0.. of the image and group whose output starts at out, plus the bias
 * (bias + first channel of the group, or NULL): portable C. */
void cd_store(const cd_job *j, const float *s, int64_t obw, int64_t ob, int64_t l0, float *out, const float *bias);

/* One job per instruction set: block b, chunk ch of image n and group g,
 * whose padded input is x (cd_image). */
void cd_job_avx512(const cd_job *j, const float *x, int64_t n, int64_t g, int64_t b, int64_t ch);
void cd_job_avx2(const cd_job *j, const float *x, int64_t n, int64_t g, int64_t b, int64_t ch);

/* The weight gradient (conv_wgrad.c) uses the same geometry and packing:
 * the packed gradient dw is laid out as the packed weights. The taps
 * (input channel, row, column) of a block are cut into groups of CD_TAPS;
 * a job sums, over every image and position, the products for one group
 * of taps and one block of output channels: vectors along output channels
 * of the output gradient (transposed CD_POS positions at a time), one
 * broadcast input value per position and tap. */
#define CD_TAPS 6
#define CD_POS 64
typedef struct {
  cd_job geo;
  const float *gy; /* the output gradient [n][oc][oh][ow] */
  float *dw;
  const int64_t *off; /* the input offset of each tap, the last repeated up to a whole group */
  int64_t n, tap_groups;
} cd_wgrad_job;

/* cd_wgrad_avx512 sums taps [t0, t1) of block b of group g, as share. */
void cd_wgrad_avx512(const cd_wgrad_job *j, int share, int64_t g, int64_t b, int64_t t0, int64_t t1);

#endif
