/* voxeval._native: the compiled parts of ``voxeval score`` (loaded by voxeval/native.py).
 *
 * columns(ids, step_lists, label_codes) -> (codes, weights, lengths, totals) or None
 *
 * What data/_fast.py's _columns computes from decoded rows, without a Python object per act: each row's label
 * codes (``label_codes[step.act]``), raw importances, number of acts and ``math.fsum`` of its importances, as
 * int8 / float64 / int64 / float64 bytes. None when a row needs the Python path: an id that is not a non-empty
 * str, a label spelling not in ``label_codes``, a weight that is not a finite float or has its sign bit set
 * (-0.0), a sum that is not finite.
 *
 * all_nonblank(strings) -> bool: ``all(s.strip() for s in strings)`` without building the stripped strings.
 * utf8_lines(lines) -> bool: whether every bytes object of the list decodes as UTF-8 (without decoding it).
 * newlines(data) -> bytes: the offsets of every newline byte of a buffer, as int64.
 *
 * rows(ids, g_codes, g_weights, g_lengths, p_codes, p_weights, p_lengths, missing, encode)
 *   -> (data: bytes, lengths: bytes, values: bytes) or None
 *
 * For each (gold, prediction) pair of the batch: the paper's WLCS (prediction-side weights), voxeval's gold
 * coverage (gold-side weights), the weighted edit distance with its path and per-kind breakdown, and the
 * ``scores.jsonl`` row, byte-identical to ``dumps(score_sample(...).to_json())`` followed by a newline.
 * Every float operation is the one the Python code in ``_wlcs.py`` / ``_wed.py`` does, in the same order
 * (Python's ``max``/``min`` keep the first of equal values, as here), the breakdown sums are ``math.fsum``'s
 * algorithm, and floats are written as ``float.__repr__`` writes them (see put_float; ``encode`` is
 * ``msgspec.json.Encoder().encode``).
 * Build with -ffp-contract=off: a fused multiply-add would change roundings.
 *
 * ``ids`` are the ids already encoded as JSON strings (``json.encoder.encode_basestring``). ``lengths`` holds
 * each row's length in bytes (int64), ``values`` the six per-pair numbers column by column (float64,
 * 6 x n: wlcs, gold_coverage, wed, deletion, insertion, substitution). None means "not here": a non-finite
 * number (which the JSON writer refuses) or an id that is not valid UTF-8; the caller then takes the Python
 * path, which gives the user the error. Nothing is decided here that the Python code would decide otherwise.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifndef NATIVE_SOURCE_SHA256
#define NATIVE_SOURCE_SHA256 "unknown" /* setup.py defines it: the sha256 of this file, checked on load */
#endif
#define TIE 1e-12

enum { OP_MATCH = 0, OP_SUBSTITUTION = 1, OP_DELETION = 2, OP_INSERTION = 3 };
static const char *const OP_OPENERS[4] = {"{\"op\":\"match\",\"pred\":", "{\"op\":\"substitution\",\"pred\":",
                                          "{\"op\":\"deletion\",\"pred\":", "{\"op\":\"insertion\",\"pred\":"};

/* ---- a growable output buffer ---- */
typedef struct {
    char *data;
    size_t size, cap;
} Buffer;

static int reserve(Buffer *b, size_t extra) {
    if (b->size + extra <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 1 << 16;
    while (cap < b->size + extra) cap *= 2;
    char *grown = PyMem_Realloc(b->data, cap);
    if (!grown) {
        PyErr_NoMemory();
        return -1;
    }
    b->data = grown;
    b->cap = cap;
    return 0;
}

/* Writers into room already reserved (see ROW_ROOM): each returns the position after what it wrote. */
#define WRITE_LIT(w, lit) (memcpy((w), (lit), sizeof(lit) - 1), (w) + sizeof(lit) - 1)

static char *write_index(char *w, Py_ssize_t k) {
    if (k < 0) return WRITE_LIT(w, "null");
    char rev[24];
    int n = 0;
    do {
        rev[n++] = (char)('0' + k % 10);
        k /= 10;
    } while (k);
    while (n) *w++ = rev[--n];
    return w;
}

/* Floats are written as float.__repr__ writes them (what json.dumps writes). Most go through msgspec's encoder,
 * called once per batch on a list of them (its shortest round-trip digits equal repr's, ~15x faster than
 * PyOS_double_to_string); msgspec writes an exponent in its own style below 1e-4 and from 1e16, so those (and,
 * to keep a margin, from 1e15) are written by PyOS_double_to_string(x, 'r', ...), which is float.__repr__. */
enum { FLOAT_ZERO, FLOAT_ONE, FLOAT_REPR, FLOAT_ENCODED };

static int float_kind(double x) {
    if (x == 0.0 && !signbit(x)) return FLOAT_ZERO;
    if (x == 1.0) return FLOAT_ONE;
    double a = fabs(x);
    if (x != 0.0 && (a < 1e-4 || a >= 1e15)) return FLOAT_REPR;
    return FLOAT_ENCODED;
}

typedef struct {
    const char *at, *end; /* the encoder's output: "[t1,t2,...]" */
} Texts;

#define FLOAT_ROOM 32 /* the longest repr of a double is 24 characters ("-2.2250738585072014e-308") */

static char *write_float(char *w, double x, Texts *texts) {
    switch (float_kind(x)) {
    case FLOAT_ZERO:
        return WRITE_LIT(w, "0.0");
    case FLOAT_ONE:
        return WRITE_LIT(w, "1.0");
    case FLOAT_REPR: {
        char *text = PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
        if (!text) return NULL;
        size_t n = strlen(text);
        if (n > FLOAT_ROOM) { /* cannot happen (at most 24 characters); never write past the room */
            PyMem_Free(text);
            PyErr_SetString(PyExc_RuntimeError, "rows: a float's text is longer than the room kept for it");
            return NULL;
        }
        memcpy(w, text, n);
        PyMem_Free(text);
        return w + n;
    }
    default: {
        const char *start = texts->at + 1; /* past "[" or "," */
        const char *stop = start;
        while (stop < texts->end && *stop != ',' && *stop != ']') stop++;
        if (stop >= texts->end || stop == start || stop - start > FLOAT_ROOM) {
            PyErr_SetString(PyExc_RuntimeError, "rows: the float encoder's output does not match what it was given");
            return NULL;
        }
        texts->at = stop;
        memcpy(w, start, (size_t)(stop - start));
        return w + (stop - start);
    }
    }
}

/* Queue a float for the encoder when put_float will take its text from there (same order). */
static int queue_float(PyObject *queue, double x) {
    if (float_kind(x) != FLOAT_ENCODED) return 0;
    PyObject *f = PyFloat_FromDouble(x);
    if (!f) return -1;
    int rc = PyList_Append(queue, f);
    Py_DECREF(f);
    return rc;
}

/* ---- math.fsum (Shewchuk's partials, CPython's algorithm) for finite terms ---- */
typedef struct {
    double *p;
    Py_ssize_t n, cap;
} Partials;

static int fsum_add(Partials *s, double x) {
    Py_ssize_t i = 0;
    for (Py_ssize_t j = 0; j < s->n; j++) {
        double y = s->p[j];
        if (fabs(x) < fabs(y)) {
            double t = x;
            x = y;
            y = t;
        }
        double hi = x + y;
        double yr = hi - x;
        double lo = y - yr;
        if (lo != 0.0) s->p[i++] = lo;
        x = hi;
    }
    s->n = i;
    if (x != 0.0) {
        if (s->n == s->cap) {
            Py_ssize_t cap = s->cap ? 2 * s->cap : 16;
            double *grown = PyMem_Realloc(s->p, (size_t)cap * sizeof(double));
            if (!grown) {
                PyErr_NoMemory();
                return -1;
            }
            s->p = grown;
            s->cap = cap;
        }
        s->p[s->n++] = x;
    }
    return 0;
}

static double fsum_result(Partials *s) {
    double hi = 0.0, lo = 0.0;
    Py_ssize_t n = s->n;
    if (n > 0) {
        hi = s->p[--n];
        while (n > 0) {
            double x = hi;
            double y = s->p[--n];
            hi = x + y;
            double yr = hi - x;
            lo = y - yr;
            if (lo != 0.0) break;
        }
        /* Half-way case: make the correction rounding go the way the remaining partials point. */
        if (n > 0 && ((lo < 0.0 && s->p[n - 1] < 0.0) || (lo > 0.0 && s->p[n - 1] > 0.0))) {
            double y = lo * 2.0;
            double x = hi + y;
            double yr = x - hi;
            if (y == yr) hi = x;
        }
    }
    return hi;
}

/* ---- one pair ---- */
typedef struct {
    double *best;  /* m + 1 */
    double *rows;  /* a stack of cost-table rows of n + 1 (see wed_rows) */
    int8_t *kind;  /* m + n */
    Py_ssize_t *at_pred, *at_gold;
    double *cost;
    size_t best_cap, rows_cap, ops_cap;
} Work;

#define BLOCK 8 /* _wed._BLOCK */

/* Rows of n + 1 the span walk needs for m prediction steps: one middle row per level of halving, the block of a
   short span and the spare row of a forward pass. */
static size_t wed_rows(Py_ssize_t m) {
    size_t levels = 0;
    for (Py_ssize_t span = m; span > BLOCK; span = span - span / 2) levels++;
    return levels + BLOCK + 3;
}

static int work_fit(Work *w, Py_ssize_t m, Py_ssize_t n) {
    size_t need_best = (size_t)m + 1, need_rows = wed_rows(m) * ((size_t)n + 1), need_ops = (size_t)(m + n) + 1;
    if (need_best > w->best_cap) {
        double *p = PyMem_Realloc(w->best, need_best * sizeof(double));
        if (!p) return -1;
        w->best = p;
        w->best_cap = need_best;
    }
    if (need_rows > w->rows_cap) {
        double *p = PyMem_Realloc(w->rows, need_rows * sizeof(double));
        if (!p) return -1;
        w->rows = p;
        w->rows_cap = need_rows;
    }
    if (need_ops > w->ops_cap) {
        int8_t *k = PyMem_Realloc(w->kind, need_ops);
        if (!k) return -1;
        w->kind = k;
        Py_ssize_t *a = PyMem_Realloc(w->at_pred, need_ops * sizeof(Py_ssize_t));
        if (!a) return -1;
        w->at_pred = a;
        Py_ssize_t *g = PyMem_Realloc(w->at_gold, need_ops * sizeof(Py_ssize_t));
        if (!g) return -1;
        w->at_gold = g;
        double *c = PyMem_Realloc(w->cost, need_ops * sizeof(double));
        if (!c) return -1;
        w->cost = c;
        w->ops_cap = need_ops;
    }
    return 0;
}

static void work_free(Work *w) {
    PyMem_Free(w->best);
    PyMem_Free(w->rows);
    PyMem_Free(w->kind);
    PyMem_Free(w->at_pred);
    PyMem_Free(w->at_gold);
    PyMem_Free(w->cost);
}

/* _wlcs._lcs: best[j] is the optimum for gold[:i] x pred[:j] while i advances. */
static double lcs(const int8_t *gc, const double *gw, Py_ssize_t n, const int8_t *pc, const double *pw,
                  Py_ssize_t m, int gold_side, double *best) {
    for (Py_ssize_t j = 0; j <= m; j++) best[j] = 0.0;
    for (Py_ssize_t i = 0; i < n; i++) {
        double prev_diag = 0.0;
        for (Py_ssize_t j = 1; j <= m; j++) {
            double above = best[j];
            double candidate = best[j - 1] > above ? best[j - 1] : above; /* max(above, best[j-1]) */
            if (gc[i] == pc[j - 1]) {
                double gain = prev_diag + (gold_side ? gw[i] : pw[j - 1]);
                if (gain > candidate) candidate = gain;
            }
            prev_diag = above;
            best[j] = candidate;
        }
    }
    return best[m];
}

static double sub_cost(int8_t p, double wp, int8_t g, double wg) { return p == g ? 0.0 : (wp + wg) / 2.0; }

/* _wed._choice: the step back from (i, j), i > 0: 0 diagonal, 1 deletion, 2 insertion. */
static int wed_choice(int8_t p, double wp, const int8_t *gc, const double *gw, const double *up, const double *row,
                      Py_ssize_t j) {
    double here = row[j];
    if (j > 0 && fabs(up[j - 1] + sub_cost(p, wp, gc[j - 1], gw[j - 1]) - here) <= TIE) return 0;
    if (j == 0 || fabs(up[j] + wp - here) <= TIE) return 1;
    return 2;
}

/* _wed._next_row: row i (columns 0..e) from row i - 1. */
static void wed_next_row(const double *up, int8_t p, double wp, const int8_t *gc, const double *gw, Py_ssize_t e,
                         double *row) {
    row[0] = up[0] + wp;
    for (Py_ssize_t j = 1; j <= e; j++) {
        double best = up[j - 1] + sub_cost(p, wp, gc[j - 1], gw[j - 1]);
        double del = up[j] + wp;
        if (del < best) best = del;
        double ins = row[j - 1] + gw[j - 1];
        if (ins < best) best = ins;
        row[j] = best;
    }
}

typedef struct {
    const int8_t *gc, *pc;
    const double *gw, *pw;
    Py_ssize_t width; /* n + 1 */
    Work *w;
    Py_ssize_t count;
} Walk;

static void wed_push(Walk *k, int choice, Py_ssize_t i, Py_ssize_t j) {
    Work *w = k->w;
    Py_ssize_t o = k->count++;
    if (choice == 0) {
        double cost = sub_cost(k->pc[i - 1], k->pw[i - 1], k->gc[j - 1], k->gw[j - 1]);
        w->kind[o] = (cost == 0.0 && k->pc[i - 1] == k->gc[j - 1]) ? OP_MATCH : OP_SUBSTITUTION;
        w->at_pred[o] = i - 1;
        w->at_gold[o] = j - 1;
        w->cost[o] = cost;
    } else if (choice == 1) {
        w->kind[o] = OP_DELETION;
        w->at_pred[o] = i - 1;
        w->at_gold[o] = -1;
        w->cost[o] = k->pw[i - 1];
    } else {
        w->kind[o] = OP_INSERTION;
        w->at_pred[o] = -1;
        w->at_gold[o] = j - 1;
        w->cost[o] = k->gw[j - 1];
    }
}

/* _wed._span: the path back from (i, j) until row top (costs top_row); returns its column there. free_rows is
   the unused part of the row stack. */
static Py_ssize_t wed_span(Walk *k, Py_ssize_t top, const double *top_row, Py_ssize_t i, Py_ssize_t j,
                           double *free_rows) {
    Py_ssize_t width = k->width;
    if (i - top <= BLOCK) {
        for (Py_ssize_t r = top + 1; r <= i; r++) {
            const double *up = r == top + 1 ? top_row : free_rows + (r - top - 2) * width;
            wed_next_row(up, k->pc[r - 1], k->pw[r - 1], k->gc, k->gw, j, free_rows + (r - top - 1) * width);
        }
        while (i > top) {
            const double *up = i == top + 1 ? top_row : free_rows + (i - top - 2) * width;
            const double *row = free_rows + (i - top - 1) * width;
            int choice = wed_choice(k->pc[i - 1], k->pw[i - 1], k->gc, k->gw, up, row, j);
            wed_push(k, choice, i, j);
            if (choice != 2) i--;
            if (choice != 1) j--;
        }
        return j;
    }
    Py_ssize_t mid = (top + i) / 2;
    double *middle = free_rows, *spare = free_rows + width;
    const double *up = top_row;
    for (Py_ssize_t r = top + 1; r <= mid; r++) {
        /* Alternate between the two rows so that row mid lands in middle. */
        double *row = ((mid - r) % 2 == 0) ? middle : spare;
        wed_next_row(up, k->pc[r - 1], k->pw[r - 1], k->gc, k->gw, j, row);
        up = row;
    }
    Py_ssize_t column = wed_span(k, mid, middle, i, j, free_rows + width);
    return wed_span(k, top, top_row, mid, column, free_rows);
}

/* _wed._path; the ops are stored back to front, their count returned. Memory: O((m + n) log m), not the table. */
static Py_ssize_t wed_path(const int8_t *gc, const double *gw, Py_ssize_t n, const int8_t *pc, const double *pw,
                           Py_ssize_t m, Work *w) {
    Walk k = {gc, pc, gw, pw, n + 1, w, 0};
    double *first = w->rows;
    first[0] = 0.0;
    for (Py_ssize_t j = 1; j <= n; j++) first[j] = first[j - 1] + gw[j - 1];
    Py_ssize_t j = wed_span(&k, 0, first, m, n, w->rows + (n + 1));
    for (; j > 0; j--) wed_push(&k, 2, 0, j);
    return k.count;
}

/* ---- the batch ---- */
typedef struct {
    Py_buffer view;
    int held;
} View;

static int get_view(PyObject *obj, View *v, Py_ssize_t itemsize, const char *name) {
    if (PyObject_GetBuffer(obj, &v->view, PyBUF_C_CONTIGUOUS) < 0) return -1;
    v->held = 1;
    if (v->view.len % itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: %zd bytes is not a whole number of %zd-byte items", name, v->view.len,
                     itemsize);
        return -1;
    }
    return 0;
}

static PyObject *native_rows(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *ids, *encode, *objs[7];
    if (!PyArg_ParseTuple(args, "O!OOOOOOOO:rows", &PyList_Type, &ids, &objs[0], &objs[1], &objs[2], &objs[3],
                          &objs[4], &objs[5], &objs[6], &encode))
        return NULL;
    static const Py_ssize_t sizes[7] = {1, 8, 8, 1, 8, 8, 1};
    static const char *const names[7] = {"g_codes", "g_weights", "g_lengths", "p_codes",
                                         "p_weights", "p_lengths", "missing"};
    View v[7];
    memset(v, 0, sizeof(v));
    Buffer out = {0};
    Work work = {0};
    Partials sums[3] = {{0}};
    PyObject *result = NULL, *lengths = NULL, *values = NULL, *queue = NULL, *encoded = NULL;
    int8_t *op_kind = NULL;
    int32_t *op_pred = NULL, *op_gold = NULL;
    double *op_cost = NULL;
    Py_ssize_t *op_count = NULL;
    int not_here = 0;
    for (int k = 0; k < 7; k++)
        if (get_view(objs[k], &v[k], sizes[k], names[k]) < 0) goto done;
    if (!PyCallable_Check(encode)) {
        PyErr_SetString(PyExc_TypeError, "rows: encode must be callable (msgspec.json.Encoder().encode)");
        goto done;
    }

    Py_ssize_t batch = PyList_GET_SIZE(ids);
    const int8_t *g_codes = v[0].view.buf, *p_codes = v[3].view.buf;
    const double *g_weights = v[1].view.buf, *p_weights = v[4].view.buf;
    const int64_t *g_lengths = v[2].view.buf, *p_lengths = v[5].view.buf;
    const uint8_t *missing = v[6].view.buf;
    if (v[2].view.len / 8 != batch || v[5].view.len / 8 != batch || v[6].view.len != batch) {
        PyErr_SetString(PyExc_ValueError, "rows: ids, g_lengths, p_lengths and missing differ in length");
        goto done;
    }
    Py_ssize_t g_total = 0, p_total = 0;
    for (Py_ssize_t k = 0; k < batch; k++) {
        if (g_lengths[k] < 0 || p_lengths[k] < 0 || g_lengths[k] > INT32_MAX || p_lengths[k] > INT32_MAX) {
            PyErr_SetString(PyExc_ValueError, "rows: a length out of range");
            goto done;
        }
        g_total += g_lengths[k];
        p_total += p_lengths[k];
    }
    if (g_total != v[0].view.len || g_total * 8 != v[1].view.len || p_total != v[3].view.len ||
        p_total * 8 != v[4].view.len) {
        PyErr_SetString(PyExc_ValueError, "rows: the lengths do not add up to the codes and weights given");
        goto done;
    }
    for (Py_ssize_t k = 0; k < g_total; k++)
        if (!isfinite(g_weights[k])) not_here = 1;
    for (Py_ssize_t k = 0; k < p_total; k++)
        if (!isfinite(p_weights[k])) not_here = 1;
    if (not_here) goto done;

    lengths = PyBytes_FromStringAndSize(NULL, batch * 8);
    values = PyBytes_FromStringAndSize(NULL, batch * 6 * 8);
    queue = PyList_New(0);
    size_t most_ops = (size_t)(g_total + p_total) + 1;
    op_kind = PyMem_Malloc(most_ops);
    op_pred = PyMem_Malloc(most_ops * sizeof(int32_t));
    op_gold = PyMem_Malloc(most_ops * sizeof(int32_t));
    op_cost = PyMem_Malloc(most_ops * sizeof(double));
    op_count = PyMem_Malloc(((size_t)batch + 1) * sizeof(Py_ssize_t));
    if (!lengths || !values || !queue) goto done;
    if (!op_kind || !op_pred || !op_gold || !op_cost || !op_count) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t *row_length = (int64_t *)PyBytes_AS_STRING(lengths);
    double *value = (double *)PyBytes_AS_STRING(values);

    /* Pass 1: the numbers and paths of every pair, and the floats the encoder is to write. */
    const int8_t *gc = g_codes, *pc = p_codes;
    const double *gw = g_weights, *pw = p_weights;
    Py_ssize_t ops = 0;
    for (Py_ssize_t k = 0; k < batch; k++) {
        Py_ssize_t n = (Py_ssize_t)g_lengths[k], m = (Py_ssize_t)p_lengths[k];
        if (work_fit(&work, m, n) < 0) {
            PyErr_NoMemory();
            goto done;
        }
        double wlcs = lcs(gc, gw, n, pc, pw, m, 0, work.best);
        double cover = lcs(gc, gw, n, pc, pw, m, 1, work.best);
        Py_ssize_t count = wed_path(gc, gw, n, pc, pw, m, &work);
        for (int s = 0; s < 3; s++) sums[s].n = 0;
        for (Py_ssize_t o = count - 1; o >= 0; o--) { /* forward along the path, as the Python code sums */
            int8_t kind = work.kind[o];
            op_kind[ops] = kind;
            op_pred[ops] = (int32_t)work.at_pred[o];
            op_gold[ops] = (int32_t)work.at_gold[o];
            op_cost[ops++] = work.cost[o];
            if (kind != OP_MATCH && fsum_add(&sums[kind - 1], work.cost[o]) < 0) goto done;
        }
        op_count[k] = count;
        double substitution = fsum_result(&sums[0]), deletion = fsum_result(&sums[1]),
               insertion = fsum_result(&sums[2]);
        double numbers[6] = {wlcs, cover, deletion + insertion + substitution, deletion, insertion, substitution};
        for (int c = 0; c < 6; c++) {
            if (!isfinite(numbers[c])) not_here = 1;
            value[c * batch + k] = numbers[c];
            if (queue_float(queue, numbers[c]) < 0) goto done;
        }
        if (not_here) goto done;
        for (Py_ssize_t o = ops - count; o < ops; o++)
            if (queue_float(queue, op_cost[o]) < 0) goto done;
        gc += n;
        gw += n;
        pc += m;
        pw += m;
    }
    encoded = PyObject_CallOneArg(encode, queue);
    if (!encoded) goto done;
    if (!PyBytes_Check(encoded) || PyBytes_GET_SIZE(encoded) < 2 || PyBytes_AS_STRING(encoded)[0] != '[') {
        PyErr_SetString(PyExc_TypeError, "rows: encode must return a JSON array as bytes");
        goto done;
    }
    if (PyList_GET_SIZE(ids) != batch) {
        PyErr_SetString(PyExc_RuntimeError, "rows: ids changed while the batch was being scored");
        goto done;
    }
    Texts texts = {PyBytes_AS_STRING(encoded), PyBytes_AS_STRING(encoded) + PyBytes_GET_SIZE(encoded)};

    /* Pass 2: the rows. */
    static const char *const keys[6] = {",\"wlcs\":", ",\"gold_coverage\":", ",\"wed\":",
                                        ",\"deletion\":", ",\"insertion\":", ",\"substitution\":"};
    size_t key_sizes[6];
    for (int c = 0; c < 6; c++) key_sizes[c] = strlen(keys[c]);
    size_t opener_sizes[4];
    for (int c = 0; c < 4; c++) opener_sizes[c] = strlen(OP_OPENERS[c]);
    ops = 0;
    for (Py_ssize_t k = 0; k < batch; k++) {
        size_t row_start = out.size;
        Py_ssize_t id_size;
        PyObject *id = PyList_GET_ITEM(ids, k);
        if (!PyUnicode_Check(id)) {
            PyErr_SetString(PyExc_TypeError, "rows: ids must be str");
            goto done;
        }
        const char *id_text = PyUnicode_AsUTF8AndSize(id, &id_size);
        if (!id_text) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) goto done;
            PyErr_Clear();
            not_here = 1;
            goto done;
        }
        /* Room for the row: fixed text, the id, 6 numbers, and per operation its text and two indices. */
        size_t room = 256 + (size_t)id_size + 6 * FLOAT_ROOM + (size_t)op_count[k] * (64 + FLOAT_ROOM + 40);
        if (reserve(&out, room) < 0) goto done;
        char *w = out.data + out.size;
        w = WRITE_LIT(w, "{\"id\":");
        memcpy(w, id_text, (size_t)id_size);
        w += id_size;
        for (int c = 0; c < 6; c++) {
            memcpy(w, keys[c], key_sizes[c]);
            w += key_sizes[c];
            if (!(w = write_float(w, value[c * batch + k], &texts))) goto done;
        }
        w = WRITE_LIT(w, ",\"ops\":[");
        for (Py_ssize_t o = ops; o < ops + op_count[k]; o++) {
            if (o != ops) *w++ = ',';
            memcpy(w, OP_OPENERS[(int)op_kind[o]], opener_sizes[(int)op_kind[o]]);
            w += opener_sizes[(int)op_kind[o]];
            w = write_index(w, op_pred[o]);
            w = WRITE_LIT(w, ",\"gold\":");
            w = write_index(w, op_gold[o]);
            w = WRITE_LIT(w, ",\"cost\":");
            if (!(w = write_float(w, op_cost[o], &texts))) goto done;
            *w++ = '}';
        }
        ops += op_count[k];
        if (missing[k])
            w = WRITE_LIT(w, "],\"missing_prediction\":true}\n");
        else
            w = WRITE_LIT(w, "],\"missing_prediction\":false}\n");
        out.size = (size_t)(w - out.data);
        row_length[k] = (int64_t)(out.size - row_start);
    }
    int all_taken = (texts.at + 1 == texts.end && *texts.at == ']') ||
                    (texts.at == PyBytes_AS_STRING(encoded) && PyBytes_GET_SIZE(encoded) == 2 && texts.at[1] == ']');
    if (!all_taken) {
        PyErr_SetString(PyExc_RuntimeError, "rows: the float encoder gave more numbers than it was given");
        goto done;
    }
    PyObject *data = PyBytes_FromStringAndSize(out.data ? out.data : "", (Py_ssize_t)out.size);
    if (data) result = Py_BuildValue("(NOO)", data, lengths, values);

done:
    for (int k = 0; k < 7; k++)
        if (v[k].held) PyBuffer_Release(&v[k].view);
    PyMem_Free(out.data);
    work_free(&work);
    for (int s = 0; s < 3; s++) PyMem_Free(sums[s].p);
    PyMem_Free(op_kind);
    PyMem_Free(op_pred);
    PyMem_Free(op_gold);
    PyMem_Free(op_cost);
    PyMem_Free(op_count);
    Py_XDECREF(lengths);
    Py_XDECREF(values);
    Py_XDECREF(queue);
    Py_XDECREF(encoded);
    if (!result && not_here && !PyErr_Occurred()) Py_RETURN_NONE;
    return result;
}

/* ---- columns of decoded rows ---- */
static PyObject *native_columns(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *ids, *step_lists, *label_codes;
    if (!PyArg_ParseTuple(args, "O!O!O!:columns", &PyList_Type, &ids, &PyList_Type, &step_lists, &PyDict_Type,
                          &label_codes))
        return NULL;
    Py_ssize_t rows = PyList_GET_SIZE(step_lists);
    if (PyList_GET_SIZE(ids) != rows) {
        PyErr_SetString(PyExc_ValueError, "columns: ids and step_lists differ in length");
        return NULL;
    }
    for (Py_ssize_t k = 0; k < rows; k++) {
        PyObject *id = PyList_GET_ITEM(ids, k);
        if (!PyUnicode_CheckExact(id) || PyUnicode_GET_LENGTH(id) == 0) Py_RETURN_NONE;
    }
    Py_ssize_t acts = 0;
    for (Py_ssize_t k = 0; k < rows; k++) {
        PyObject *steps = PyList_GET_ITEM(step_lists, k);
        if (!PyList_CheckExact(steps)) Py_RETURN_NONE;
        acts += PyList_GET_SIZE(steps);
    }
    PyObject *codes = PyBytes_FromStringAndSize(NULL, acts);
    PyObject *weights = PyBytes_FromStringAndSize(NULL, acts * 8);
    PyObject *lengths = PyBytes_FromStringAndSize(NULL, rows * 8);
    PyObject *totals = PyBytes_FromStringAndSize(NULL, rows * 8);
    PyObject *act_name = PyUnicode_InternFromString("act"), *importance_name = PyUnicode_InternFromString("importance");
    PyObject *result = NULL;
    Partials sum = {0};
    int not_here = 0;
    if (!codes || !weights || !lengths || !totals || !act_name || !importance_name) goto done;
    int8_t *code_at = (int8_t *)PyBytes_AS_STRING(codes);
    double *weight_at = (double *)PyBytes_AS_STRING(weights);
    int64_t *length_at = (int64_t *)PyBytes_AS_STRING(lengths);
    double *total_at = (double *)PyBytes_AS_STRING(totals);
    Py_ssize_t at = 0;
    for (Py_ssize_t k = 0; k < rows && !not_here; k++) {
        PyObject *steps = PyList_GET_ITEM(step_lists, k);
        Py_ssize_t n = PyList_GET_SIZE(steps);
        sum.n = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            /* The attribute lookups below may run Python code (for objects that are not the decoder's
             * structs): never trust sizes read before them. */
            if (PyList_GET_SIZE(steps) != n || at >= acts) {
                PyErr_SetString(PyExc_RuntimeError, "columns: a list changed while it was being read");
                goto done;
            }
            PyObject *step = PyList_GET_ITEM(steps, i);
            PyObject *act = PyObject_GetAttr(step, act_name);
            if (!act) goto done;
            PyObject *code = PyDict_GetItemWithError(label_codes, act); /* borrowed */
            Py_DECREF(act);
            if (!code) {
                if (PyErr_Occurred()) goto done;
                not_here = 1; /* a lenient spelling: the full parser maps it */
                break;
            }
            long value = PyLong_AsLong(code);
            if (value == -1 && PyErr_Occurred()) goto done;
            if (value < 0 || value > 127) {
                PyErr_SetString(PyExc_ValueError, "columns: a label code outside 0..127");
                goto done;
            }
            PyObject *importance = PyObject_GetAttr(step, importance_name);
            if (!importance) goto done;
            if (!PyFloat_CheckExact(importance)) {
                Py_DECREF(importance);
                not_here = 1;
                break;
            }
            double w = PyFloat_AS_DOUBLE(importance);
            Py_DECREF(importance);
            if (!isfinite(w) || signbit(w)) { /* -0.0: see _fast._acts */
                not_here = 1;
                break;
            }
            code_at[at] = (int8_t)value;
            weight_at[at++] = w;
            if (fsum_add(&sum, w) < 0) goto done;
        }
        if (not_here) break;
        double total = fsum_result(&sum);
        if (!isfinite(total)) {
            not_here = 1;
            break;
        }
        length_at[k] = n;
        total_at[k] = total;
    }
    if (!not_here) result = PyTuple_Pack(4, codes, weights, lengths, totals);

done:
    Py_XDECREF(codes);
    Py_XDECREF(weights);
    Py_XDECREF(lengths);
    Py_XDECREF(totals);
    Py_XDECREF(act_name);
    Py_XDECREF(importance_name);
    PyMem_Free(sum.p);
    if (!result && not_here && !PyErr_Occurred()) Py_RETURN_NONE;
    return result;
}

static PyObject *native_all_nonblank(PyObject *self, PyObject *strings) {
    (void)self;
    if (!PyList_Check(strings)) {
        PyErr_SetString(PyExc_TypeError, "all_nonblank: a list of str");
        return NULL;
    }
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(strings); k++) {
        PyObject *s = PyList_GET_ITEM(strings, k);
        if (!PyUnicode_Check(s)) {
            PyErr_SetString(PyExc_TypeError, "all_nonblank: a list of str");
            return NULL;
        }
        if (PyUnicode_READY(s) < 0) return NULL;
        int kind = PyUnicode_KIND(s);
        const void *data = PyUnicode_DATA(s);
        Py_ssize_t n = PyUnicode_GET_LENGTH(s), i = 0;
        while (i < n && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i))) i++;
        if (i == n) Py_RETURN_FALSE;
    }
    Py_RETURN_TRUE;
}

/* ---- bytes ---- */
/* Well-formed UTF-8 (Unicode's Table 3-7), which is exactly what bytes.decode("utf-8") accepts. */
static int utf8_valid(const unsigned char *p, Py_ssize_t n) {
    Py_ssize_t i = 0;
    while (i < n) {
        /* ASCII eight bytes at a time */
        while (i + 8 <= n) {
            uint64_t word;
            memcpy(&word, p + i, 8);
            if (word & 0x8080808080808080ULL) break;
            i += 8;
        }
        if (i >= n) break;
        unsigned char c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        Py_ssize_t need;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF)
            need = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else
            return 0;
        if (i + need >= n) return 0; /* truncated */
        if (p[i + 1] < lo || p[i + 1] > hi) return 0;
        for (Py_ssize_t k = 2; k <= need; k++)
            if (p[i + k] < 0x80 || p[i + k] > 0xBF) return 0;
        i += need + 1;
    }
    return 1;
}

static PyObject *native_utf8_lines(PyObject *self, PyObject *lines) {
    (void)self;
    if (!PyList_Check(lines)) {
        PyErr_SetString(PyExc_TypeError, "utf8_lines: a list of bytes");
        return NULL;
    }
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(lines); k++) {
        PyObject *line = PyList_GET_ITEM(lines, k);
        if (!PyBytes_Check(line)) {
            PyErr_SetString(PyExc_TypeError, "utf8_lines: a list of bytes");
            return NULL;
        }
        if (!utf8_valid((const unsigned char *)PyBytes_AS_STRING(line), PyBytes_GET_SIZE(line))) Py_RETURN_FALSE;
    }
    Py_RETURN_TRUE;
}

static PyObject *native_newlines(PyObject *self, PyObject *data) {
    (void)self;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) return NULL;
    const char *start = view.buf, *end = start + view.len, *at = start;
    Py_ssize_t count = 0;
    while ((at = memchr(at, '\n', (size_t)(end - at)))) {
        count++;
        at++;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, count * 8);
    if (out) {
        int64_t *pos = (int64_t *)PyBytes_AS_STRING(out);
        at = start;
        while ((at = memchr(at, '\n', (size_t)(end - at)))) {
            *pos++ = (int64_t)(at - start);
            at++;
        }
    }
    PyBuffer_Release(&view);
    return out;
}

static PyMethodDef methods[] = {
    {"columns", native_columns, METH_VARARGS,
     "columns(ids, step_lists, label_codes) -> (codes, weights, lengths, totals) or None (see voxeval.native)."},
    {"all_nonblank", native_all_nonblank, METH_O, "all_nonblank(strings) -> all(s.strip() for s in strings)."},
    {"utf8_lines", native_utf8_lines, METH_O, "utf8_lines(lines) -> whether every bytes object decodes as UTF-8."},
    {"newlines", native_newlines, METH_O, "newlines(data) -> int64 bytes: the offsets of every b'\\n' in data."},
    {"rows", native_rows, METH_VARARGS,
     "rows(ids, g_codes, g_weights, g_lengths, p_codes, p_weights, p_lengths, missing, encode) -> (data, lengths, "
     "values) "
     "or None: one batch of scores.jsonl rows (see voxeval.native)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native", "The compiled parts of voxeval score (see voxeval.native).", -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddStringConstant(m, "SOURCE_SHA256", NATIVE_SOURCE_SHA256) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
