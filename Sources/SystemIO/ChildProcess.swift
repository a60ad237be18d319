import Platform
public import GeoBase
import GeoCore
import Synchronization

// Why not swiftlang/swift-subprocess 1.0.2 (which does all of this, with pidfd on Linux)?
// Measured on this 2-core machine (2026-11-23, load ≈ 15): a clean debug build of
// swift-subprocess + swift-system costs 21.6 s of CPU (81 s wall), against 130.7 s of CPU for
// the whole of LocationKit with its tests, i.e. +17 % on every CI build, and it would make every
// client of SystemIO (Positioning, OSMImport, the CLI) depend on both packages for a feature
// only tests use today. This file is the part of it we need: ~300 lines, compiled in seconds.

/// An error from starting, waiting for or stopping a ``ChildProcess``.
public struct ChildProcessError: Error, Sendable, CustomStringConvertible {
    /// What went wrong: a growable code (`ErrorCode`, STYLE.md §3.7).
    public typealias Code = ErrorCode<ChildProcessError>

    /// What went wrong.
    public var code: Code
    /// A human-readable explanation naming the program or file.
    public var message: String
    /// The `errno` of the failing system call, if one failed.
    public var systemError: Int32? = nil
    /// How the process ended, for ``Code/timedOut`` and ``Code/cancelled``.
    public var status: ExitStatus? = nil

    public var description: String {
        "\(code): \(message)" + (systemError.map { " (\(String(cString: strerror($0))))" } ?? "")
    }
}

extension ErrorCode where Domain == ChildProcessError {
    /// `posix_spawn` (or creating its helper thread) failed: no such program, not executable.
    public static var spawnFailed: Self { Self("spawn failed") }
    /// A file or pipe for standard input, output or error could not be opened.
    public static var redirectionFailed: Self { Self("redirection failed") }
    /// The process outlived the timeout given to ``ChildProcess/exitStatus(timeout:)`` and was killed.
    public static var timedOut: Self { Self("timed out") }
    /// The waiting task was cancelled; the process was killed.
    public static var cancelled: Self { Self("cancelled") }
}

/// How a child process ended.
public enum ExitStatus: Sendable, Hashable, CustomStringConvertible {
    /// It called `exit` with this code (0 ... 255).
    case exited(Int32)
    /// A signal (`SIGKILL` = 9, `SIGTERM` = 15, ...) ended it.
    case signaled(Int32)

    /// Whether it exited with code 0.
    public var isSuccess: Bool { self == .exited(0) }

    /// The shell's number for it: the exit code, or 128 + the signal.
    public var shellStatus: Int32 {
        switch self {
        case .exited(let code): code
        case .signaled(let signal): 128 + signal
        }
    }

    public var description: String {
        switch self {
        case .exited(let code): "exited with \(code)"
        case .signaled(let signal): "killed by signal \(signal)"
        }
    }

    /// Decodes a `waitpid` status word (the `WIFEXITED`/`WTERMSIG` macros, which Swift does not import).
    init(waitStatus: Int32) {
        self = waitStatus & 0x7f == 0 ? .exited((waitStatus >> 8) & 0xff) : .signaled(waitStatus & 0x7f)
    }
}

/// A running child process, started with `posix_spawn`, awaited without blocking a thread of
/// Swift's cooperative pool.
///
/// Hygiene: the child starts with every descriptor but 0, 1 and 2 closed (whatever other
/// threads of this process have open, close-on-exec or not), no blocked signals and every
/// signal's default action, so a test runner that blocks or ignores signals does not pass that
/// on. A dedicated thread (not one of the pool's) waits for the exit with `waitid(WNOWAIT)` and
/// reaps the process under the same lock that ``send(signal:)`` takes, so a signal never reaches
/// a recycled process id.
///
/// Dropping the last reference does not stop the process; call ``kill()`` or wait for it.
public final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    public struct Redirection: Sendable {
        enum Kind: Sendable { case inherit, nullDevice, file(String, append: Bool), pipe, descriptor(FileDescriptor) }
        let kind: Kind
        /// The parent's own stream.
        public static let inherit = Redirection(kind: .inherit)
        /// `/dev/null`.
        public static let nullDevice = Redirection(kind: .nullDevice)
        /// A file: read for standard input; created or truncated for output and error.
        public static func file(_ path: String) -> Redirection { Redirection(kind: .file(path, append: false)) }
        /// A file appended to (created if missing); for output and error.
        public static func appending(to path: String) -> Redirection { Redirection(kind: .file(path, append: true)) }
        /// A pipe read by a dedicated thread into ``ChildProcess/standardOutput`` or
        /// ``ChildProcess/standardError``; for output and error.
        public static let pipe = Redirection(kind: .pipe)
        /// A descriptor of the parent's, duplicated into the child (the write end of a pipe
        /// whose reader is gone, say); the parent still owns and closes it.
        public static func descriptor(_ descriptor: FileDescriptor) -> Redirection { Redirection(kind: .descriptor(descriptor)) }
    }

    /// What to run and how.
    public struct Configuration: Sendable {
        /// The program: a path, or a bare name looked up on the parent's `PATH`.
        public var executable: String
        /// The arguments after the program name.
        public var arguments: [String]
        /// The whole environment of the child; nil inherits the parent's.
        public var environment: [String: String]?
        /// The child's working directory; nil inherits the parent's.
        public var workingDirectory: String?
        /// Standard input; `/dev/null` unless set, so a child never reads the runner's terminal.
        public var standardInput: Redirection
        /// Standard output.
        public var standardOutput: Redirection
        /// Standard error.
        public var standardError: Redirection
        /// Starts the child in a new process group of its own, so that signals reach everything
        /// it starts in turn (a daemon under a wrapper, say).
        public var newProcessGroup: Bool

        public init(executable: String, arguments: [String] = [], environment: [String: String]? = nil,
                    workingDirectory: String? = nil, standardInput: Redirection = .nullDevice,
                    standardOutput: Redirection = .inherit, standardError: Redirection = .inherit,
                    newProcessGroup: Bool = false) {
            self.executable = executable
            self.arguments = arguments
            self.environment = environment
            self.workingDirectory = workingDirectory
            self.standardInput = standardInput
            self.standardOutput = standardOutput
            self.standardError = standardError
            self.newProcessGroup = newProcessGroup
        }
    }

    /// The child's process id (also its process group id with ``Configuration/newProcessGroup``).
    public let processID: Int32
    /// The chunks the child writes to standard output, until it closes it; only with
    /// ``Redirection/pipe``. The reading thread drains the pipe whether or not anyone iterates,
    /// so the child never blocks on a full pipe; iterate it once.
    public let standardOutput: AsyncStream<[UInt8]>?
    /// The chunks the child writes to standard error; only with ``Redirection/pipe``.
    public let standardError: AsyncStream<[UInt8]>?

    private let signalsGroup: Bool
    private let state = Mutex(State())

    private struct State {
        var status: ExitStatus?
        var waiters: [UnsafeContinuation<ExitStatus, Never>] = []
    }

    private init(processID: Int32, signalsGroup: Bool, standardOutput: AsyncStream<[UInt8]>?, standardError: AsyncStream<[UInt8]>?) {
        self.processID = processID
        self.signalsGroup = signalsGroup
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// Starts a child process.
    ///
    /// - Throws: ``ChildProcessError`` with ``ChildProcessError/Code/redirectionFailed`` or
    ///   ``ChildProcessError/Code/spawnFailed``.
    public static func spawn(_ configuration: Configuration) throws(ChildProcessError) -> ChildProcess {
        var parentEnds: [Int32] = []      // descriptors the parent closes once the child has them
        defer { for fd in parentEnds { close(fd) } }
        var readers: [Int32?] = [nil, nil, nil]

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Before any descriptor is opened, so that a failure here has nothing to close.
        if let directory = configuration.workingDirectory {
            #if os(Linux)
            guard let addChdir = GNUExtensions.addChdir else {
                throw ChildProcessError(code: .spawnFailed, message: "this C library cannot set a child's working directory (glibc 2.29+ can)")
            }
            let rc = addChdir(&actions, directory)
            #else
            let rc = posix_spawn_file_actions_addchdir_np(&actions, directory)
            #endif
            guard rc == 0 else {
                throw ChildProcessError(code: .spawnFailed, message: "cannot set the working directory \(directory)", systemError: rc)
            }
        }
        let streams = [configuration.standardInput, configuration.standardOutput, configuration.standardError]
        for (target, redirection) in streams.enumerated() {
            let target = Int32(target)
            let opened: Result<FileDescriptor, SystemIOError>
            switch redirection.kind {
            case .inherit:
                #if canImport(Darwin)
                posix_spawn_file_actions_addinherit_np(&actions, target)
                #endif
                continue
            case .nullDevice:
                opened = Result { () throws(SystemIOError) in try FileDescriptor(opening: "/dev/null", .readWrite) }
            case .file(let path, let append):
                opened = Result { () throws(SystemIOError) in
                    target == 0 ? try FileDescriptor(opening: path)
                        : try FileDescriptor(opening: path, .writeOnly, options: [.create, append ? .append : .truncate])
                }
            case .pipe:
                guard target != 0 else {
                    throw ChildProcessError(code: .redirectionFailed, message: "a pipe is for standard output or error, not input")
                }
                let ends: (read: FileDescriptor, write: FileDescriptor)
                do { ends = try FileDescriptor.pipe() } catch {
                    throw ChildProcessError(code: .redirectionFailed, message: "pipe for fd \(target)", systemError: error.errno)
                }
                readers[Int(target)] = ends.read.rawValue
                parentEnds.append(ends.write.rawValue)
                posix_spawn_file_actions_adddup2(&actions, ends.write.rawValue, target)
                continue
            case .descriptor(let descriptor):
                posix_spawn_file_actions_adddup2(&actions, descriptor.rawValue, target)
                continue
            }
            let fd: FileDescriptor
            switch opened {
            case .success(let descriptor): fd = descriptor
            case .failure(let error):
                for case let reader? in readers { close(reader) }
                throw ChildProcessError(code: .redirectionFailed, message: "cannot open \(redirection.kind) for fd \(target)", systemError: error.errno)
            }
            parentEnds.append(fd.rawValue)
            posix_spawn_file_actions_adddup2(&actions, fd.rawValue, target)
        }
        #if os(Linux)
        _ = GNUExtensions.addCloseFrom?(&actions, 3)
        #endif

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), everySignal = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&everySignal)
        sigdelset(&everySignal, SIGKILL) // their actions cannot be changed; some libcs fail on them
        sigdelset(&everySignal, SIGSTOP)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &everySignal)
        var flags = Int32(POSIX_SPAWN_SETSIGMASK) | Int32(POSIX_SPAWN_SETSIGDEF)
        if configuration.newProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        #if canImport(Darwin)
        flags |= Int32(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([configuration.executable] + configuration.arguments).map { strdup($0) } + [nil]
        let envp = configuration.environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for p in argv + (envp ?? []) { free(p) } }
        var pid: pid_t = 0
        let spawn = configuration.executable.contains("/") ? posix_spawn : posix_spawnp
        let rc = envp.map { spawn(&pid, configuration.executable, &actions, &attributes, argv, $0) }
            ?? spawn(&pid, configuration.executable, &actions, &attributes, argv, currentEnvironment())
        guard rc == 0 else {
            for case let reader? in readers { close(reader) }
            throw ChildProcessError(code: .spawnFailed, message: "cannot start \(configuration.executable)", systemError: rc)
        }

        let process = ChildProcess(processID: pid, signalsGroup: configuration.newProcessGroup,
                                   standardOutput: readers[1].map(readAll), standardError: readers[2].map(readAll))
        do {
            try detachThread { process.waitAndReap() }
        } catch {
            process.kill()
            throw error
        }
        return process
    }

    /// Starts a child process and waits for it to end.
    ///
    /// - Parameter timeout: how long it may run before it is killed; nil waits forever.
    /// - Throws: ``ChildProcessError``: it could not start, timed out, or the task was cancelled.
    public static func run(_ configuration: Configuration, timeout: Duration? = nil) async throws(ChildProcessError) -> ExitStatus {
        try await spawn(configuration).exitStatus(timeout: timeout)
    }

    /// Waits for the process to end, suspending the task without holding a thread.
    ///
    /// On timeout, or when the waiting task is cancelled, the process (its group, with
    /// ``Configuration/newProcessGroup``) is killed with `SIGKILL` and reaped before this throws.
    ///
    /// - Parameter timeout: how long to wait before killing it; nil waits forever.
    /// - Throws: ``ChildProcessError`` with ``ChildProcessError/Code/timedOut`` or
    ///   ``ChildProcessError/Code/cancelled``, carrying the status.
    public func exitStatus(timeout: Duration? = nil) async throws(ChildProcessError) -> ExitStatus {
        let stoppedBy = StopReason()
        let status = await withTaskCancellationHandler {
            await withTaskGroup(of: ExitStatus?.self) { group in
                group.addTask { await self.reaped() }
                if let timeout {
                    group.addTask {
                        guard (try? await Task.sleep(for: timeout)) != nil else { return nil }
                        stoppedBy.kill(self, because: .timedOut)
                        return nil
                    }
                }
                for await case let status? in group {
                    group.cancelAll()
                    return status
                }
                preconditionFailure("Broken contract: the reaping task returned no status")
            }
        } onCancel: {
            stoppedBy.kill(self, because: .cancelled)
        }
        if let code = stoppedBy.code.withLock({ $0 }) {
            let why = code == .timedOut ? "ran longer than \(timeout ?? .zero)" : "the waiting task was cancelled"
            throw ChildProcessError(code: code, message: "process \(processID) killed: \(why)", status: status)
        }
        return status
    }

    /// Sends `signal` to the process (to its group, with ``Configuration/newProcessGroup``).
    /// Returns false once it has been reaped: its id may then belong to another process.
    @discardableResult
    public func send(signal: Int32) -> Bool {
        state.withLock { state in
            guard state.status == nil else { return false }
            #if canImport(Glibc)
            return Glibc.kill(signalsGroup ? -processID : processID, signal) == 0
            #else
            return Darwin.kill(signalsGroup ? -processID : processID, signal) == 0
            #endif
        }
    }

    /// Asks the process to stop (`SIGTERM`). Returns false once it has been reaped.
    @discardableResult
    public func terminate() -> Bool { send(signal: SIGTERM) }

    /// Kills the process (`SIGKILL`). Returns false once it has been reaped.
    @discardableResult
    public func kill() -> Bool { send(signal: SIGKILL) }

    /// The status, once the waiter thread has reaped the process.
    private func reaped() async -> ExitStatus {
        await withUnsafeContinuation { continuation in
            let known = state.withLock { state -> ExitStatus? in
                if state.status == nil { state.waiters.append(continuation) }
                return state.status
            }
            if let known { continuation.resume(returning: known) }
        }
    }

    /// Runs on the dedicated waiter thread: blocks until the process ends, then reaps it.
    private func waitAndReap() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(processID), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        let waiters = state.withLock { state in
            var word: Int32 = 0
            while waitpid(processID, &word, 0) < 0 && errno == EINTR {}
            state.status = ExitStatus(waitStatus: word)
            defer { state.waiters = [] }
            return state.waiters.map { ($0, state.status!) }
        }
        for (continuation, status) in waiters { continuation.resume(returning: status) }
    }
}

/// Why ``ChildProcess/exitStatus(timeout:)`` killed the process, if it did: the first of
/// timeout and cancellation whose `SIGKILL` reached it.
private final class StopReason: Sendable {
    let code = Mutex<ChildProcessError.Code?>(nil)

    func kill(_ process: ChildProcess, because reason: ChildProcessError.Code) {
        code.withLock { code in
            if code == nil, process.kill() { code = reason }
        }
    }
}

extension ChildProcess.Redirection.Kind: CustomStringConvertible {
    var description: String {
        switch self {
        case .inherit: "the parent's stream"
        case .nullDevice: "/dev/null"
        case .file(let path, _): path
        case .pipe: "a pipe"
        case .descriptor(let descriptor): "descriptor \(descriptor.rawValue)"
        }
    }
}

/// The parent's environment block.
private func currentEnvironment() -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> {
    #if canImport(Darwin)
    return _NSGetEnviron().pointee!
    #else
    return environ
    #endif
}

/// Reads `fd` to its end on a dedicated thread, yielding each chunk, then closes it.
private func readAll(_ fd: Int32) -> AsyncStream<[UInt8]> {
    let (stream, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .unbounded)
    do {
        try detachThread {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    continuation.yield(Array(buffer[..<count]))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(fd)
            continuation.finish()
        }
    } catch {
        close(fd)
        continuation.finish()
    }
    return stream
}

/// The closure a ``detachThread(_:)`` thread runs, passed through `pthread_create`'s context pointer.
private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

private func threadMain(_ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().run()
}

/// Runs `body` on a new detached thread with a small stack (256 KiB): blocking calls belong
/// there, never on a thread of the cooperative pool.
private func detachThread(_ body: @escaping @Sendable () -> Void) throws(ChildProcessError) {
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    pthread_attr_setstacksize(&attributes, 256 * 1024)
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    #if canImport(Glibc)
    var thread = pthread_t()
    #else
    var thread: pthread_t?
    #endif
    let rc = pthread_create(&thread, &attributes, { threadMain($0); return nil }, context)
    guard rc == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        throw ChildProcessError(code: .spawnFailed, message: "cannot start a waiter thread", systemError: rc)
    }
}

#if os(Linux)
/// glibc functions that Swift's Glibc module hides behind `_GNU_SOURCE`, looked up once by name
/// (nil when the C library is too old: `closefrom` needs glibc 2.34, `addchdir` 2.29).
private enum GNUExtensions {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32

    static let addCloseFrom = symbol("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)
    static let addChdir = symbol("posix_spawn_file_actions_addchdir_np", as: AddChdir.self)

    private static func symbol<Function>(_ name: String, as type: Function.Type) -> Function? {
        // A null handle is glibc's RTLD_DEFAULT: search every loaded object.
        dlsym(nil, name).map { unsafeBitCast($0, to: type) }
    }
}
#endif
