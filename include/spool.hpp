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
 * One file per concern, as spool.h: this one has join, scopes, task groups,
 * broadcast, isolation and pools, and includes spool_loop.hpp (loops,
 * reductions, search) and spool_task.hpp (tasks and completion queues).
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
#include <exception>
#include <mutex>
#include <new>
#include <system_error>
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

} // namespace spool

/* The rest of the interface, one file per concern as in spool.h. */
#include <spool_loop.hpp>
#include <spool_task.hpp>

#endif /* SPOOL_HPP */
