//! Work spread over the cores: with the `parallel` feature (on by default)
//! by rayon, without it in order on the calling thread. Results come back in
//! input order either way, so nothing a caller computes depends on it.
//!
//! Where no thread can be started (a limit on a control group's tasks, as
//! a container or a cluster's job may set, or on a user's processes), the
//! work runs in order on the calling thread too, with the same results:
//! rayon would panic on making its pool.

/// Whether rayon may spread work: on a thread of a pool, or where rayon's
/// global pool is made already or can be made now. Asked once a process.
#[cfg(feature = "parallel")]
pub(crate) fn spread() -> bool {
    static GLOBAL: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    rayon::current_thread_index().is_some()
        || *GLOBAL.get_or_init(|| match rayon::ThreadPoolBuilder::new().build_global() {
            Ok(()) => true,
            // Made already, by this process's own caller: it runs. A
            // thread that could not be started is the error's source
            // (rayon stops the ones it had started).
            Err(e) => std::error::Error::source(&e).is_none(),
        })
}

/// Runs `a` and `b`, in parallel when the feature allows.
pub(crate) fn join<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    #[cfg(feature = "parallel")]
    if spread() {
        return rayon::join(a, b);
    }
    (a(), b())
}

/// `f` of every item, in input order.
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    #[cfg(feature = "parallel")]
    if spread() {
        use rayon::prelude::*;
        return items.par_iter().map(f).collect();
    }
    items.iter().map(f).collect()
}

/// `f` of every item, taken by value, in input order.
pub(crate) fn map_owned<T: Send, R: Send>(
    items: Vec<T>,
    f: impl Fn(T) -> R + Sync + Send,
) -> Vec<R> {
    #[cfg(feature = "parallel")]
    if spread() {
        use rayon::prelude::*;
        return items.into_par_iter().map(f).collect();
    }
    items.into_iter().map(f).collect()
}

/// The worker threads a batch of jobs runs on: the current pool's (the
/// one a caller installed, or one per core), or 1 without the feature or
/// where no thread can be started.
pub(crate) fn workers() -> usize {
    #[cfg(feature = "parallel")]
    if spread() {
        return rayon::current_num_threads();
    }
    1
}

/// `f` of every item, in input order, on `workers` threads of their own
/// taking the items in order (on the calling thread where there is one
/// worker, or without the feature). For jobs that may block, waiting for
/// memory another job holds (`memory::Budget`): a worker of a rayon pool
/// must not, since while a job's nested parallel work waits, its thread
/// may take up another job, which would then wait for memory its own
/// thread's unfinished job holds. These threads take jobs only from this
/// call; the jobs' nested work runs on the pool as before. Where fewer
/// threads can be started than asked, those started take every item; where
/// none can, the calling thread does.
pub(crate) fn map_workers<T: Send, R: Send>(
    items: Vec<T>,
    workers: usize,
    f: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    let n = items.len();
    if cfg!(not(feature = "parallel")) || workers.min(n) <= 1 {
        return items.into_iter().map(f).collect();
    }
    let queue = std::sync::Mutex::new(items.into_iter().enumerate());
    let work = || {
        let mut done = Vec::new();
        loop {
            let next = queue.lock().unwrap_or_else(|p| p.into_inner()).next();
            match next {
                Some((i, item)) => done.push((i, f(item))),
                None => return done,
            }
        }
    };
    let parts: Vec<Vec<(usize, R)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers.min(n))
            .map_while(|_| std::thread::Builder::new().spawn_scoped(scope, work).ok())
            .collect();
        if handles.is_empty() {
            return vec![work()];
        }
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut out: Vec<Option<R>> = (0..n).map(|_| None).collect();
    for (i, r) in parts.into_iter().flatten() {
        out[i] = Some(r);
    }
    out.into_iter()
        .map(|r| r.expect("every item is taken by one worker"))
        .collect()
}

/// A pool of threads for the nested parallel work of jobs that
/// [`map_workers`] runs (a network's routing tables are built on every
/// thread of the pool they are built in): the jobs' own threads are not
/// a pool's, so without one their nested work would spread over every
/// core, past the workers a caller asked for. Without the feature, or
/// where the pool cannot be made, work runs on the calling thread.
pub(crate) struct Pool {
    #[cfg(feature = "parallel")]
    pool: Option<rayon::ThreadPool>,
}

impl Pool {
    /// A pool of `threads` threads.
    pub(crate) fn new(threads: usize) -> Pool {
        #[cfg(feature = "parallel")]
        {
            Pool {
                pool: rayon::ThreadPoolBuilder::new()
                    .num_threads(threads.max(1))
                    .build()
                    .ok(),
            }
        }
        #[cfg(not(feature = "parallel"))]
        {
            let _ = threads;
            Pool {}
        }
    }

    /// Runs `f` in the pool, its nested parallel work on the pool's
    /// threads; the caller waits for it. `f` must not wait for another
    /// job (see [`map_workers`]).
    pub(crate) fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        #[cfg(feature = "parallel")]
        if let Some(p) = &self.pool {
            return p.install(f);
        }
        f()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_input_order() {
        let v: Vec<u32> = (0..1000).collect();
        assert_eq!(
            super::map(&v, |x| x * 2),
            v.iter().map(|x| x * 2).collect::<Vec<_>>()
        );
        assert_eq!(super::map_owned(v.clone(), |x| x + 1)[999], 1000);
        assert_eq!(super::join(|| 1, || "b"), (1, "b"));
        for workers in [1, 2, 7, 2000] {
            assert_eq!(
                super::map_workers(v.clone(), workers, |x| x * 3),
                v.iter().map(|x| x * 3).collect::<Vec<_>>()
            );
        }
        assert!(super::map_workers(Vec::<u32>::new(), 4, |x| x).is_empty());
        // Nested work runs on the pool's threads, as many as asked.
        #[cfg(feature = "parallel")]
        for n in [1, 3] {
            assert_eq!(super::Pool::new(n).install(rayon::current_num_threads), n);
        }
    }
}
