import Foundation
import Testing
import SystemIO
import GeoTestSupport

/// Everything a piped stream delivers until the child closes it, as UTF-8.
private func collect(_ stream: AsyncStream<[UInt8]>?) async throws -> String {
    var bytes: [UInt8] = []
    for await chunk in try #require(stream) { bytes += chunk }
    return String(decoding: bytes, as: UTF8.self)
}

@Test func run_reportsTheExitCode() async throws {
    #expect(try await ChildProcess.run(.init(executable: "/bin/sh", arguments: ["-c", "exit 0"])) == .exited(0))
    #expect(try await ChildProcess.run(.init(executable: "sh", arguments: ["-c", "exit 3"])) == .exited(3))
    #expect(ExitStatus.exited(3).shellStatus == 3 && ExitStatus.signaled(9).shellStatus == 137)
}

@Test func spawn_missingProgram_throwsSpawnFailed() async throws {
    let error = try #require(throws: ChildProcessError.self) {
        try ChildProcess.spawn(.init(executable: "/nonexistent/program-\(UUID().uuidString)"))
    }
    #expect(error.code == .spawnFailed && error.systemError == ENOENT, "\(error)")
}

@Test func redirection_fileInAndOut_andAppend() async throws {
    try await withTemporaryDirectory { dir in
        let input = dir.appendingPathComponent("in").path, output = dir.appendingPathComponent("out").path
        try Data("one\ntwo\n".utf8).write(to: URL(fileURLWithPath: input))
        let cat = ChildProcess.Configuration(executable: "cat", standardInput: .file(input), standardOutput: .file(output))
        #expect(try await ChildProcess.run(cat) == .exited(0))
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "one\ntwo\n")
        var again = cat
        again.standardOutput = .appending(to: output)
        #expect(try await ChildProcess.run(again) == .exited(0))
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "one\ntwo\none\ntwo\n")
        let missing = try #require(throws: ChildProcessError.self) {
            try ChildProcess.spawn(.init(executable: "cat", standardInput: .file(input + "-missing")))
        }
        #expect(missing.code == .redirectionFailed && missing.systemError == ENOENT)
    }
}

@Test func environmentAndWorkingDirectory_areTheChilds() async throws {
    let process = try ChildProcess.spawn(.init(
        executable: "/bin/sh", arguments: ["-c", "pwd; echo \"$LK_VALUE\"; echo \"${HOME:-unset}\""],
        environment: ["LK_VALUE": "42"], workingDirectory: "/usr", standardOutput: .pipe
    ))
    #expect(try await collect(process.standardOutput) == "/usr\n42\nunset\n")
    #expect(try await process.exitStatus() == .exited(0))
}

@Test func pipes_carryOutputAndErrorApart() async throws {
    let process = try ChildProcess.spawn(.init(
        executable: "/bin/sh", arguments: ["-c", "head -c 200000 /dev/zero | tr '\\0' x; echo oops >&2"],
        standardOutput: .pipe, standardError: .pipe
    ))
    async let output = collect(process.standardOutput)
    async let error = collect(process.standardError)
    // 200 000 bytes is three times a Linux pipe's buffer: the reading thread must drain it.
    #expect(try await output == String(repeating: "x", count: 200_000))
    #expect(try await error == "oops\n")
    #expect(try await process.exitStatus() == .exited(0))
}

@Test func timeout_killsTheProcess_andThrowsTimedOut() async {
    // On a thread of its own, so that the timer does not wait behind other tests' jobs.
    await withTaskExecutorPreference(OneThreadExecutor()) {
        // Killed (SIGKILL), not ended by itself after 600 s (exit 0).
        let error = await #expect(throws: ChildProcessError.self) {
            try await ChildProcess.run(.init(executable: "sleep", arguments: ["600"]), timeout: .milliseconds(200))
        }
        #expect(error?.code == .timedOut)
        #expect(error?.status == .signaled(SIGKILL))
    }
}

@Test func cancellation_killsTheProcess_andThrowsCancelled() async throws {
    // On a thread of its own: on the shared pool, tests with long synchronous work can hold every
    // thread past the 30 s of `sleep`, and the cancellation would then come after a normal exit.
    // The cancel comes from a plain thread too: `Task.sleep` resumes through the shared pool first
    // (its timer fires there), so a busy pool delayed it past the 30 s as well.
    try await withTaskExecutorPreference(OneThreadExecutor()) {
        let process = try ChildProcess.spawn(.init(executable: "sleep", arguments: ["30"]))
        let waiter = Task { try await process.exitStatus() }
        Thread.detachNewThread {
            usleep(100_000)
            waiter.cancel()
        }
        let error = await #expect(throws: ChildProcessError.self) { try await waiter.value }
        #expect(error?.code == .cancelled && error?.status == .signaled(SIGKILL), "\(String(describing: error))")
        #expect(!process.kill(), "the process was reaped; no signal goes to its id any more")
    }
}

@Test func terminate_sendsSIGTERM() async throws {
    let process = try ChildProcess.spawn(.init(executable: "sleep", arguments: ["30"]))
    #expect(process.terminate())
    #expect(try await process.exitStatus(timeout: .seconds(10)) == .signaled(SIGTERM))
    #expect(!process.terminate())
}

@Test(.timeLimit(.minutes(1))) func newProcessGroup_killReachesGrandchildren() async throws {
    try await withTaskExecutorPreference(OneThreadExecutor()) {
        // The grandchild `sleep` holds the pipe open; the pipe closes only when it dies too.
        let process = try ChildProcess.spawn(.init(
            executable: "/bin/sh", arguments: ["-c", "sleep 600 & echo started; wait"],
            standardOutput: .pipe, newProcessGroup: true
        ))
        var iterator = try #require(process.standardOutput).makeAsyncIterator()
        #expect(await iterator.next() == Array("started\n".utf8))
        #expect(process.kill())
        // The pipe closes only when the grandchild (sleeping 600 s) is gone too.
        #expect(await iterator.next() == nil, "end of output: the grandchild is gone")
        #expect(try await process.exitStatus() == .signaled(SIGKILL))
    }
}

#if os(Linux)
@Test func child_getsNoDescriptorsAndNoBlockedOrIgnoredSignals() async throws {
    // A descriptor this process leaks (not close-on-exec), as other code might.
    let leaked = open("/dev/null", O_RDONLY)
    defer { close(leaked) }
    #expect(leaked >= 3 && fcntl(leaked, F_GETFD) & FD_CLOEXEC == 0, "an inheritable descriptor, \(leaked)")
    // The runner's own signal state, changed around the (synchronous) spawns on this thread only.
    let listing: ChildProcess, status: ChildProcess
    do {
        var blocked = sigset_t(), saved = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR1)
        pthread_sigmask(SIG_BLOCK, &blocked, &saved)
        let ignored = signal(SIGUSR2, SIG_IGN)
        defer { signal(SIGUSR2, ignored); pthread_sigmask(SIG_SETMASK, &saved, nil) }
        listing = try ChildProcess.spawn(.init(executable: "ls", arguments: ["-1", "/proc/self/fd"], standardOutput: .pipe))
        status = try ChildProcess.spawn(.init(executable: "grep", arguments: ["-E", "^Sig(Blk|Ign)", "/proc/self/status"], standardOutput: .pipe))
    }
    let descriptors = try await collect(listing.standardOutput).split(separator: "\n").compactMap { Int32($0) }
    let lines = try await collect(status.standardOutput).split(separator: "\n")
    #expect(try await listing.exitStatus() == .exited(0))
    #expect(try await status.exitStatus() == .exited(0))
    // The child's whole table: 0, 1 and 2, and the one `ls` opens to read the folder, which takes
    // the lowest free number, 3; an inherited descriptor would add a fifth. Not "the child has no
    // descriptor numbered `leaked`": numbers are per process, and `leaked` is 3 itself whenever
    // 3 happens to be free here (tests running in parallel open and close low descriptors).
    #expect(descriptors == [0, 1, 2, 3], "fds \(descriptors), leaked \(leaked)")
    #expect(lines.contains("SigBlk:\t0000000000000000"), "\(lines)")
    // No standard signal (1...31, SIGUSR2 = 12 among them) is ignored; glibc's posix_spawn
    // itself ignores its two internal real-time signals (32, 33), which programs never see.
    let ignoredMask = try #require(lines.first { $0.hasPrefix("SigIgn:") }.flatMap { UInt64($0.dropFirst(8), radix: 16) })
    #expect(ignoredMask & 0x7fff_ffff == 0, "SigIgn \(String(ignoredMask, radix: 16))")
}
#endif

/// Runs every job on one thread of its own, one after another: waits that blocked their thread
/// would run one after another on it too.
private final class OneThreadExecutor: TaskExecutor, @unchecked Sendable { // `jobs` is guarded by `condition`
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init() {
        Thread { [self] in
            while true {
                condition.lock()
                while jobs.isEmpty { condition.wait() }
                let job = jobs.removeFirst()
                condition.unlock()
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }
}

@Test func waiting_holdsNoThread() async throws {
    // On ONE thread: a task awaits a child that would sleep for 10 minutes, and a second task on
    // the same thread stops that child. If the first wait held the thread, the second task could
    // never run and the wait would end only at its 60 s timeout, as `.timedOut`; with a wait
    // that holds no thread, the child ends by SIGTERM. No timing is measured.
    let sleeper = try ChildProcess.spawn(.init(executable: "sleep", arguments: ["600"]))
    let status = try await withTaskExecutorPreference(OneThreadExecutor()) {
        try await withThrowingTaskGroup(of: Optional<SystemIO.ExitStatus>.self) { group in
            group.addTask { Optional(try await sleeper.exitStatus(timeout: .seconds(60))) }
            group.addTask {
                #expect(sleeper.terminate(), "the sleeper was reaped before it was asked to stop")
                return Optional<SystemIO.ExitStatus>.none
            }
            return try await group.reduce(into: [SystemIO.ExitStatus]()) { if let s = $1 { $0.append(s) } }
        }
    }
    #expect(status == [.signaled(SIGTERM)])
}
