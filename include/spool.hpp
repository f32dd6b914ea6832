/*
 * spool.hpp: C++17 wrappers over spool.h (header-only).
 *
 *   spool::join([&] { ... }, [&] { ... });      // or join_inline (spool_inline.h)
 *   spool::scope([&](spool::scope_ref s) { s.spawn([&] { ... }); });
 *   spool::task_group g;  g.run([&] { ... });  g.run([=] { ... });  g.wait();
 *   spool::parallel_for(0, n, [&](size_t i) { a[i] *= 2; });
 *   double sum = spool::parallel_reduce(0, n, 0.0,
 *       [&](double acc, size_t b, size_t e) { for (; b < e; b++) acc += x[b]; return acc; },
 *       [](double l, double r) { return l + r; });
 *   spool::pool p(4);  p.install([&] { ... });
 *   spool::task a([&] { ... }), b = a.then([&] { ... });  b.submit();  a.submit();
 *   b.wait();
 *
 * Callables go through trampolines; join allocates nothing.  An exception
 * thrown by a callable never crosses spool's C frames: it is caught there
 * and rethrown in the caller once the join, scope, loop, reduction or
 * broadcast has finished (the first one if several threw; the others are
 * dropped, as oneTBB and rayon do).  Everything else (threads, ordering,
 * nesting) is as the C functions of the same name say in spool.h.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SPOOL_HPP
#define SPOOL_HPP

#if __cplusplus < 201703L && !(defined(_MSVC_LANG) && _MSVC_LANG >= 201703L)
#error "spool.hpp needs C++17"
#endif

#include <spool.h>
#include <spool_inline.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>

namespace spool {

namespace detail {

/* The first exception of a group of calls, rethrown by its owner. */
class first_error {
public:
    void capture() noexcept
    {
        std::lock_guard<std::mutex> hold(lock_);
        if (!error_)
            error_ = std::current_exception();
        failed_.store(true, std::memory_order_relaxed);
    }
    bool failed() const noexcept { return failed_.load(std::memory_order_relaxed); }
    void rethrow()
    {
        if (error_)
            std::rethrow_exception(error_);
    }
    /* Rethrows and forgets it, for an owner that goes on (a task group). */
    void rethrow_once()
    {
        std::exception_ptr e;
        {
            std::lock_guard<std::mutex> hold(lock_);
            e.swap(error_);
            failed_.store(false, std::memory_order_relaxed);
        }
        if (e)
            std::rethrow_exception(e);
    }

private:
    std::mutex lock_;
    std::exception_ptr error_;
    std::atomic<bool> failed_{false};
};

inline void check(int err, const char *what)
{
    if (err == ENOMEM)
        throw std::bad_alloc();
    if (err != 0)
        throw std::system_error(err, std::generic_category(), what);
}

template <class F> struct call {
    F *f;
    std::exception_ptr error;
};

template <class F> void run_call(void *arg) noexcept
{
    auto *c = static_cast<call<F> *>(arg);
    try {
        (*c->f)();
    } catch (...) {
        c->error = std::current_exception();
    }
}

template <bool Inline, class A, class B> void join(A &&a, B &&b)
{
    using FA = std::remove_reference_t<A>;
    using FB = std::remove_reference_t<B>;
    call<FA> ca{&a, nullptr};
    call<FB> cb{&b, nullptr};
    if constexpr (Inline)
        spool_join_inline(run_call<FA>, &ca, run_call<FB>, &cb);
    else
        spool_join(run_call<FA>, &ca, run_call<FB>, &cb);
    if (ca.error)
        std::rethrow_exception(ca.error);
    if (cb.error)
        std::rethrow_exception(cb.error);
}

} // namespace detail

/* Runs a() and b(), potentially in parallel (spool_join).  Rethrows a's
 * exception, else b's. */
template <class A, class B> void join(A &&a, B &&b)
{
    detail::join<false>(std::forward<A>(a), std::forward<B>(b));
}

/* join, with the fork's common path compiled in (spool_join_inline): for
 * the finest-grained forks; it ties the program to the library's layout
 * (spool_inline.h). */
template <class A, class B> void join_inline(A &&a, B &&b)
{
    detail::join<true>(std::forward<A>(a), std::forward<B>(b));
}

/* A scope, as its body and its spawned jobs see it. */
class scope_ref {
public:
    scope_ref(spool_scope_t *s, detail::first_error *errors) : scope_(s), errors_(errors) {}

    /* Spawns f into the scope: f is copied (or moved) and called later as
     * f(scope_ref) or f().  A trivially copyable f of a few words (a lambda
     * that captures by reference, say) is copied into the job
     * (spool_scope_spawn_copy), any other to the heap (spool_scope_spawn);
     * the latter throws std::bad_alloc if the copy cannot be made (nothing
     * was spawned).  Throws std::system_error (ECANCELED) if the scope was
     * cancelled. */
    template <class F> void spawn(F &&f)
    {
        using FD = std::decay_t<F>;
        if constexpr (std::is_trivially_copyable_v<FD> &&
                      sizeof(small_job<FD>) <= SPOOL_SPAWN_COPY_INLINE) {
            small_job<FD> j{FD(std::forward<F>(f)), errors_};
            detail::check(spool_scope_spawn_copy(scope_, &small_job<FD>::run, &j, sizeof j),
                          "spool_scope_spawn_copy");
        } else {
            using job_t = job<FD>;
            auto *j = new job_t{std::forward<F>(f), errors_};
            int err = spool_scope_spawn(scope_, &job_t::run, j);
            if (err != 0) {
                delete j;
                detail::check(err, "spool_scope_spawn");
            }
        }
    }

    /* Runs f on every worker of the scope's pool (spool_scope_spawn_broadcast)
     * as f(scope_ref, index, num_threads) or f(index, num_threads); the scope
     * waits for all the runs.  f is copied once, shared by the runs. */
    template <class F> void spawn_broadcast(F &&f)
    {
        using job_t = broadcast_job<std::decay_t<F>>;
        auto *j = new job_t{std::forward<F>(f), errors_, {0}};
        int err = spool_scope_spawn_broadcast(scope_, &job_t::run, j);
        if (err != 0) {
            delete j;
            detail::check(err, "spool_scope_spawn_broadcast");
        }
    }

    /* Cancels the scope (spool_scope_cancel): its jobs not yet started do
     * not run, and spawn() throws std::system_error (ECANCELED) from now. */
    void cancel() noexcept { (void)spool_scope_cancel(scope_); }
    /* Whether the scope, or one it was made in, was cancelled. */
    bool cancelled() const noexcept { return spool_scope_is_cancelled(scope_) != 0; }

    spool_scope_t *get() const noexcept { return scope_; }

private:
    /* Calls f as f(scope_ref) or f(), its exception kept in errors. */
    template <class F> static void call(F &f, spool_scope_t *s, detail::first_error *errors) noexcept
    {
        try {
            if constexpr (std::is_invocable_v<F &, scope_ref>)
                f(scope_ref(s, errors));
            else
                f();
        } catch (...) {
            errors->capture();
        }
    }

    /* On the heap (spool_scope_spawn). */
    template <class F> struct job {
        F f;
        detail::first_error *errors;
        static void run(spool_scope_t *s, void *arg) noexcept
        {
            auto *j = static_cast<job *>(arg);
            call(j->f, s, j->errors);
            delete j;
        }
    };

    /* Copied into the job (spool_scope_spawn_copy). */
    template <class F> struct small_job {
        F f;
        detail::first_error *errors;
        static void run(spool_scope_t *s, void *arg) noexcept
        {
            auto *j = static_cast<small_job *>(arg);
            call(j->f, s, j->errors);
        }
    };

    template <class F> struct broadcast_job {
        F f;
        detail::first_error *errors;
        std::atomic<unsigned> remaining;
        static void run(spool_scope_t *s, void *arg, unsigned index, unsigned n) noexcept
        {
            auto *j = static_cast<broadcast_job *>(arg);
            try {
                if constexpr (std::is_invocable_v<F &, scope_ref, unsigned, unsigned>)
                    j->f(scope_ref(s, j->errors), index, n);
                else
                    j->f(index, n);
            } catch (...) {
                j->errors->capture();
            }
            /* The n runs share j: the last one frees it.  Acq_rel pairs with
             * the other runs' increments, so the last has seen them finish. */
            if (j->remaining.fetch_add(1, std::memory_order_acq_rel) + 1 == n)
                delete j;
        }
    };

    spool_scope_t *scope_;
    detail::first_error *errors_;
};

namespace detail {

template <class F> struct scope_call {
    F *body;
    first_error errors;
};

template <class F> void run_scope_body(spool_scope_t *s, void *arg) noexcept
{
    auto *c = static_cast<scope_call<F> *>(arg);
    try {
        (*c->body)(scope_ref(s, &c->errors));
    } catch (...) {
        c->errors.capture();
    }
}

} // namespace detail

/* Runs body(scope_ref) and waits for everything spawned into the scope
 * (spool_scope: per-thread LIFO).  Rethrows the first exception of the body
 * or of any spawned job, once all have finished. */
template <class F> void scope(F &&body)
{
    using FB = std::remove_reference_t<F>;
    detail::scope_call<FB> c{&body, {}};
    spool_scope(detail::run_scope_body<FB>, &c);
    c.errors.rethrow();
}

/* As scope, with per-thread FIFO order (spool_scope_fifo). */
template <class F> void scope_fifo(F &&body)
{
    using FB = std::remove_reference_t<F>;
    detail::scope_call<FB> c{&body, {}};
    spool_scope_fifo(detail::run_scope_body<FB>, &c);
    c.errors.rethrow();
}

/* A task group (spool_group_*): spawns from the owner's own frame, waited
 * for by wait() or by the destructor, as oneTBB's task_group and OpenMP's
 * taskgroup.  run(f) copies f; f() or f(scope_ref) runs later, and may run
 * more jobs into the group through its scope_ref.  wait() rethrows the
 * first exception of a job once all have finished; the group may take new
 * jobs after it.  Constructed, waited for and destroyed on one thread;
 * groups on one thread end in the reverse order of their opening (as
 * automatic objects do). */
class task_group {
public:
    task_group() { spool_group_init(&group_); }
    explicit task_group(bool fifo) : fifo_(fifo)
    {
        fifo ? spool_group_init_fifo(&group_) : spool_group_init(&group_);
    }
    task_group(const task_group &) = delete;
    task_group &operator=(const task_group &) = delete;
    /* Waits if wait() was not called since the last run; an exception of a
     * job is dropped then (a destructor must not throw). */
    ~task_group()
    {
        if (open_)
            spool_group_wait(&group_);
    }

    template <class F> void run(F &&f)
    {
        reopen();
        scope().spawn(std::forward<F>(f));
    }
    void wait()
    {
        if (open_) {
            spool_group_wait(&group_);
            open_ = false;
        }
        errors_.rethrow_once();
    }
    void cancel() noexcept
    {
        reopen();
        (void)spool_scope_cancel(spool_group_scope(&group_));
    }
    bool cancelled() noexcept { return open_ && spool_scope_is_cancelled(spool_group_scope(&group_)); }
    scope_ref scope() noexcept { return scope_ref(spool_group_scope(&group_), &errors_); }

private:
    void reopen()
    {
        if (!open_) {
            fifo_ ? spool_group_init_fifo(&group_) : spool_group_init(&group_);
            open_ = true;
        }
    }

    spool_group_t group_;
    detail::first_error errors_;
    bool fifo_ = false;
    bool open_ = true;
};

namespace detail {

template <class F> struct for_call {
    F *body;
    first_error errors;
};

template <class F> void run_for_part(void *ctx, size_t begin, size_t end) noexcept
{
    auto *c = static_cast<for_call<F> *>(ctx);
    if (c->errors.failed())
        return; /* something threw: skip the parts not yet started */
    try {
        if constexpr (std::is_invocable_v<F &, size_t, size_t>) {
            (*c->body)(begin, end);
        } else {
            for (size_t i = begin; i < end; i++)
                (*c->body)(i);
        }
    } catch (...) {
        c->errors.capture();
    }
}

} // namespace detail

/* A parallel loop over [begin, end) (spool_for): body(b, e) on parts, or
 * body(i) on each index.  If a call throws, parts not yet started are
 * skipped, and the first exception is rethrown once the loop returns. */
template <class F>
void parallel_for(size_t begin, size_t end, F &&body, const spool_for_opts_t *opts = nullptr)
{
    using FB = std::remove_reference_t<F>;
    detail::for_call<FB> c{&body, {}};
    spool_for(begin, end, opts, detail::run_for_part<FB>, &c);
    c.errors.rethrow();
}

namespace detail {

template <class T, class Fold, class Combine> struct reduce_call {
    const T *identity;
    Fold *fold;
    Combine *combine;
    first_error errors;

    static void init(void *ctx, void *acc) noexcept
    {
        auto *c = static_cast<reduce_call *>(ctx);
        new (acc) T(*c->identity);
    }
    static void fold_part(void *ctx, void *acc, size_t begin, size_t end) noexcept
    {
        auto *c = static_cast<reduce_call *>(ctx);
        if (c->errors.failed())
            return;
        try {
            T *a = static_cast<T *>(acc);
            *a = (*c->fold)(std::move(*a), begin, end);
        } catch (...) {
            c->errors.capture();
        }
    }
    static void combine_two(void *ctx, void *left, const void *right) noexcept
    {
        auto *c = static_cast<reduce_call *>(ctx);
        if (c->errors.failed())
            return;
        try {
            T *l = static_cast<T *>(left);
            *l = (*c->combine)(std::move(*l), *static_cast<const T *>(right));
        } catch (...) {
            c->errors.capture();
        }
    }
};

} // namespace detail

/* A parallel reduction over [begin, end) (spool_reduce): fold(acc, b, e)
 * returns acc with the elements b .. e-1 added in order, combine(left,
 * right) the two joined, left covering the lower indices; identity is the
 * neutral value.  T is kept in raw stack buffers by the C layer, so it must
 * be trivially copyable and at most SPOOL_REDUCE_MAX_SIZE bytes.  Rethrows
 * the first exception of fold or combine once the reduction returns. */
template <class T, class Fold, class Combine>
T parallel_reduce(size_t begin, size_t end, const T &identity, Fold &&fold, Combine &&combine,
                  const spool_for_opts_t *opts = nullptr)
{
    static_assert(std::is_trivially_copyable_v<T>, "the accumulator must be trivially copyable");
    static_assert(sizeof(T) <= SPOOL_REDUCE_MAX_SIZE, "the accumulator is too large");
    static_assert(alignof(T) <= alignof(std::max_align_t), "the accumulator is over-aligned");
    using call_t = detail::reduce_call<T, std::remove_reference_t<Fold>, std::remove_reference_t<Combine>>;
    call_t c{&identity, &fold, &combine, {}};
    spool_reducer_t r = {sizeof(T), &call_t::init, &call_t::fold_part, &call_t::combine_two};
    alignas(T) unsigned char result[sizeof(T)];
    spool_reduce(begin, end, opts, &r, &c, result);
    c.errors.rethrow();
    T out = identity; /* trivially copyable: its bytes are the result's */
    std::memcpy(static_cast<void *>(&out), result, sizeof(T));
    return out;
}

namespace detail {

template <class F> struct broadcast_call {
    F *f;
    first_error errors;
};

template <class F> void run_broadcast(void *ctx, unsigned index, unsigned n) noexcept
{
    auto *c = static_cast<broadcast_call<F> *>(ctx);
    try {
        if constexpr (std::is_invocable_v<F &, unsigned, unsigned>)
            (*c->f)(index, n);
        else
            (*c->f)();
    } catch (...) {
        c->errors.capture();
    }
}

template <class F> void broadcast_in(spool_pool_t *pool, F &f)
{
    broadcast_call<F> c{&f, {}};
    check(pool != nullptr ? spool_pool_broadcast(pool, run_broadcast<F>, &c)
                          : spool_broadcast(run_broadcast<F>, &c),
          "spool_broadcast");
    c.errors.rethrow();
}

} // namespace detail

/* Runs f(index, num_threads) (or f()) once on every worker of the current
 * pool (the global one from outside) and waits (spool_broadcast).  Throws
 * std::bad_alloc for ENOMEM, std::system_error for other errors, and
 * rethrows the first exception of f. */
template <class F> void broadcast(F &&f)
{
    detail::broadcast_in<std::remove_reference_t<F>>(nullptr, f);
}

/* Runs f() in an isolation region (spool_isolate): while it runs, waits on
 * this thread run only jobs made inside it.  Rethrows f's exception. */
template <class F> void isolate(F &&f)
{
    using FF = std::remove_reference_t<F>;
    detail::call<FF> c{&f, nullptr};
    spool_isolate(detail::run_call<FF>, &c);
    if (c.error)
        std::rethrow_exception(c.error);
}

namespace detail {

template <class P> struct find_call {
    P *pred;
    first_error *errors;
};

template <class P> size_t run_find(void *ctx, size_t begin, size_t end) noexcept
{
    auto *c = static_cast<find_call<P> *>(ctx);
    if (c->errors->failed())
        return begin; /* stop the search: an exception is on its way */
    try {
        for (size_t i = begin; i < end; i++)
            if ((*c->pred)(i))
                return i;
    } catch (...) {
        c->errors->capture();
        return begin;
    }
    return end;
}

template <bool First, class P>
size_t find(size_t begin, size_t end, P &pred, const spool_for_opts_t *opts)
{
    first_error errors;
    find_call<P> c{&pred, &errors};
    size_t r = First ? spool_find_first(begin, end, opts, run_find<P>, &c)
                     : spool_find_any(begin, end, opts, run_find<P>, &c);
    errors.rethrow();
    return r;
}

} // namespace detail

/* The lowest i in [begin, end) with pred(i) true, or end (spool_find_first). */
template <class P>
size_t find_first(size_t begin, size_t end, P &&pred, const spool_for_opts_t *opts = nullptr)
{
    return detail::find<true>(begin, end, pred, opts);
}

/* Some i in [begin, end) with pred(i) true, or end (spool_find_any). */
template <class P>
size_t find_any(size_t begin, size_t end, P &&pred, const spool_for_opts_t *opts = nullptr)
{
    return detail::find<false>(begin, end, pred, opts);
}

/* A pool of worker threads that destroys itself (spool_pool_destroy, which
 * waits for the pool's work) when it goes out of scope.  Move-only.  Do not
 * let the last owner be destroyed on one of the pool's own workers: destroy
 * refuses that (EDEADLK), and the pool then stays. */
class pool {
public:
    /* num_threads 0: the default (SPOOL_NUM_THREADS, else the CPUs). */
    explicit pool(unsigned num_threads = 0)
    {
        spool_config_t c = SPOOL_CONFIG_INIT;
        c.num_threads = num_threads;
        detail::check(spool_pool_create(&c, &pool_), "spool_pool_create");
    }
    explicit pool(const spool_config_t &config)
    {
        detail::check(spool_pool_create(&config, &pool_), "spool_pool_create");
    }
    ~pool()
    {
        if (pool_ != nullptr)
            spool_pool_destroy(pool_);
    }
    pool(pool &&other) noexcept : pool_(std::exchange(other.pool_, nullptr)) {}
    pool &operator=(pool &&other) noexcept
    {
        if (this != &other) {
            if (pool_ != nullptr)
                spool_pool_destroy(pool_);
            pool_ = std::exchange(other.pool_, nullptr);
        }
        return *this;
    }
    pool(const pool &) = delete;
    pool &operator=(const pool &) = delete;

    /* Runs f() on a worker of this pool and waits (spool_pool_install);
     * rethrows its exception. */
    template <class F> void install(F &&f)
    {
        using FF = std::remove_reference_t<F>;
        detail::call<FF> c{&f, nullptr};
        detail::check(spool_pool_install(pool_, detail::run_call<FF>, &c), "spool_pool_install");
        if (c.error)
            std::rethrow_exception(c.error);
    }

    /* As spool::broadcast, on this pool's workers. */
    template <class F> void broadcast(F &&f)
    {
        detail::broadcast_in<std::remove_reference_t<F>>(pool_, f);
    }

    unsigned num_threads() const noexcept { return spool_pool_num_threads(pool_); }
    spool_pool_t *get() const noexcept { return pool_; }

private:
    spool_pool_t *pool_ = nullptr;
};


/* A completion queue (spool_completions_*): tasks post a tag to it when they
 * finish, and its descriptor is readable while it holds tags.  Its
 * destructor waits until every task that will post to it has done so
 * (destroy a spool::task before its queue: an unsubmitted one is cancelled
 * and posts then).  Move-only. */
class completions {
public:
    completions() { detail::check(spool_completions_create(&cq_), "spool_completions_create"); }
    ~completions()
    {
        if (cq_ != nullptr)
            while (spool_completions_destroy(cq_) == EBUSY)
                std::this_thread::yield();
    }
    completions(completions &&other) noexcept : cq_(std::exchange(other.cq_, nullptr)) {}
    completions &operator=(completions &&other) noexcept
    {
        std::swap(cq_, other.cq_);
        return *this;
    }
    completions(const completions &) = delete;
    completions &operator=(const completions &) = delete;

    /* The descriptor for poll/epoll/uv_poll (spool_completions_fd). */
    int fd() const noexcept { return spool_completions_fd(cq_); }
    /* Up to max tags into tags, without blocking; how many. */
    std::size_t take(void **tags, std::size_t max) noexcept
    {
        return spool_completions_take(cq_, tags, max);
    }
    /* As take, after waiting up to timeout_ms (-1: no limit) for a tag. */
    std::size_t wait(void **tags, std::size_t max, int timeout_ms = -1) noexcept
    {
        return spool_completions_wait(cq_, tags, max, timeout_ms);
    }
    spool_completions_t *get() const noexcept { return cq_; }

private:
    spool_completions_t *cq_ = nullptr;
};

/* A task (spool_task_*) running a callable, which is copied (or moved) into
 * it: it runs once submitted and after every task that precedes it.  An
 * exception the callable throws is kept and rethrown by wait().  The
 * destructor releases the task: one never submitted is cancelled; one
 * submitted is waited for first, so that the callable outlives its run
 * (as a std::future of std::async does).  Move-only. */
class task {
public:
    task() = default;
    /* In the calling worker's pool, or the global pool from outside. */
    template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, task>>>
    explicit task(F &&f) : task(nullptr, std::forward<F>(f))
    {
    }
    template <class F> task(spool_pool_t *pool, F &&f)
    {
        auto *b = new body<std::decay_t<F>>(std::forward<F>(f));
        int err = spool_task_create(pool, &body<std::decay_t<F>>::run, b, &t_);
        if (err != 0) {
            delete b;
            detail::check(err, "spool_task_create");
        }
        body_ = b;
        pool_ = pool;
    }
    template <class F> task(spool::pool &p, F &&f) : task(p.get(), std::forward<F>(f)) {}
    ~task() { reset(); }
    task(task &&other) noexcept
        : t_(std::exchange(other.t_, nullptr)), body_(std::exchange(other.body_, nullptr)),
          pool_(std::exchange(other.pool_, nullptr)),
          submitted_(std::exchange(other.submitted_, false))
    {
    }
    task &operator=(task &&other) noexcept
    {
        if (this != &other) {
            reset();
            t_ = std::exchange(other.t_, nullptr);
            body_ = std::exchange(other.body_, nullptr);
            pool_ = std::exchange(other.pool_, nullptr);
            submitted_ = std::exchange(other.submitted_, false);
        }
        return *this;
    }
    task(const task &) = delete;
    task &operator=(const task &) = delete;

    /* next will not start before this task has finished. */
    void precede(task &next) { detail::check(spool_task_precede(t_, next.t_), "spool_task_precede"); }
    /* A new task running f after this one, in the pool this one was given
     * (none: the caller's pool now, or the global pool); not submitted. */
    template <class F> task then(F &&f)
    {
        task next(pool_, std::forward<F>(f));
        precede(next);
        return next;
    }
    /* When the task finishes, tag is posted to cq (before submit). */
    void notify(completions &cq, void *tag)
    {
        detail::check(spool_task_notify(t_, cq.get(), tag), "spool_task_notify");
    }
    void submit()
    {
        detail::check(spool_task_submit(t_), "spool_task_submit");
        submitted_ = true;
    }
    /* Waits until the task has finished; rethrows what its callable threw. */
    void wait()
    {
        detail::check(spool_task_wait(t_), "spool_task_wait");
        if (body_ != nullptr && body_->error)
            std::rethrow_exception(body_->error);
    }
    /* True if the task will not run (spool_task_cancel). */
    bool cancel() noexcept { return spool_task_cancel(t_) == 0; }
    bool done() const noexcept { return spool_task_done(t_) != 0; }
    bool cancelled() const noexcept { return spool_task_cancelled(t_) != 0; }
    spool_task_t *get() const noexcept { return t_; }

private:
    struct body_base {
        std::exception_ptr error;
        virtual ~body_base() = default;
    };
    template <class F> struct body : body_base {
        F f;
        template <class G> explicit body(G &&g) : f(std::forward<G>(g)) {}
        static void run(void *arg) noexcept
        {
            auto *b = static_cast<body *>(arg);
            try {
                b->f();
            } catch (...) {
                b->error = std::current_exception();
            }
        }
    };

    void reset() noexcept
    {
        if (t_ == nullptr)
            return;
        if (submitted_)
            (void)spool_task_wait(t_); /* the callable must outlive its run */
        spool_task_release(t_);        /* unsubmitted: cancelled */
        delete body_;
        t_ = nullptr;
        body_ = nullptr;
        submitted_ = false;
    }

    spool_task_t *t_ = nullptr;
    body_base *body_ = nullptr;
    spool_pool_t *pool_ = nullptr;
    bool submitted_ = false;
};

} // namespace spool

#endif /* SPOOL_HPP */
