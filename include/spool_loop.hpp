/*
 * spool_loop.hpp: C++17 wrappers over spool_loop.h: parallel_for,
 * parallel_reduce, find_first and find_any.
 *
 * Part of spool.hpp: spool.hpp includes it, and it includes spool.hpp, so
 * that either may be included first; what spool.hpp's opening comment says
 * of callables and exceptions holds here too.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef SPOOL_HPP_LOOP
#define SPOOL_HPP_LOOP

#include <spool.hpp>

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace spool {

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

} // namespace spool

#endif /* SPOOL_HPP_LOOP */
