/*
 * spool_task.hpp: C++17 wrappers over spool_task.h: spool::task (a node
 * of a task graph, running a callable) and spool::completions (a queue of
 * finished tasks' tags that an event loop can poll).
 *
 * Part of spool.hpp: spool.hpp includes it, and it includes spool.hpp, so
 * that either may be included first; what spool.hpp's opening comment says
 * of callables and exceptions holds here too.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SPOOL_HPP_TASK
#define SPOOL_HPP_TASK

#include <spool.hpp>

#include <cstddef>
#include <exception>
#include <thread>
#include <type_traits>
#include <utility>

namespace spool {

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

#endif /* SPOOL_HPP_TASK */
