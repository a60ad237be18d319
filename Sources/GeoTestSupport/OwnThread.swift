public import Testing
import Foundation

/// A trait that runs a test's synchronous stretches on threads of their own rather than on
/// Swift's cooperative pool: `@Test(.onOwnThread) func longSweep() { … }`.
///
/// The pool has one thread per core (2 here) and runs queued jobs first in, first out. A
/// synchronous test holds its thread until it returns, so two tests of seconds of CPU or of
/// file I/O stall every other test's `await` (a `Task.sleep`, a continuation from a child
/// process, an actor hop) behind them; in a parallel run that was tens of seconds, enough for
/// bounded waits (`eventually`, timeouts, a gpsd replay that ends) to fail. Give this trait to
/// any test whose synchronous work takes more than about a second; the operating system then
/// shares the cores between it and the pool. Give it also to tests racing an outside process
/// (gpsfake gives up on a client after 60 s): each of their `await`s then resumes on a thread
/// of its own at once, not behind the pool's queue.
public struct OwnThreadTrait: TestTrait, TestScoping {
    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        let executor = OwnThreadExecutor()
        defer { executor.finish() }
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Runs the test's synchronous work on a thread of its own (see ``OwnThreadTrait``).
    public static var onOwnThread: Self { OwnThreadTrait() }
}

/// A task executor with one thread of its own that runs its jobs in order: a test's body up to
/// its first `await`, then each stretch between two, and its child tasks'. Task-locals (the
/// current test, for `#expect`) stay with the task. The thread ends after ``finish()`` once no
/// job is left; a job enqueued later still runs, on a thread of its own.
final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable { // `jobs`, `finished` are guarded by `condition`
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false
    private var running = true

    init() {
        let thread = Thread { [self] in
            while let job = next() { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
        thread.stackSize = 8 << 20 // bytes: the main thread's default, for deep recursion in tests
        thread.start()
    }

    /// The next job, waiting for one; nil once finished and drained.
    private func next() -> UnownedJob? {
        condition.lock()
        defer { condition.unlock() }
        while jobs.isEmpty && !finished { condition.wait() }
        if jobs.isEmpty { running = false; return nil }
        return jobs.removeFirst()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        defer { condition.unlock() }
        if running {
            jobs.append(job)
            condition.signal()
        } else {
            let executor = asUnownedTaskExecutor()
            Thread { job.runSynchronously(on: executor) }.start()
        }
    }

    /// Lets the thread end once its queue is empty.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }
}
