import Platform
public import GeoBase
import Synchronization

/// The one path by which a command-line program's results leave on standard output (`geo`'s
/// `standardOutput`): a `BufferedWriter` shared by every copy of the value, written with
/// `print(_:to:)`, `write(_:)`, or as a `ByteSink`. Make one per process.
///
/// A failed write ends the process at once, the way a Unix filter ends (so a stream such as
/// `geo simulate` or `geo track` stops instead of computing into the void):
/// - the reader is gone (`EPIPE`, `geo … | head`): a quiet exit by `SIGPIPE`, shell status 141,
///   as `cat` or `yes` end; nothing on standard error;
/// - anything else (`ENOSPC`, `EIO` …): one line on standard error,
///   `PROGRAM: cannot write standard output: No space left on device`, and exit status 74
///   (`EX_IOERR`, sysexits.h).
///
/// `SIGPIPE` itself is ignored while the program runs (``ignoreBrokenPipeSignal()``), so a
/// closed socket or pipe elsewhere is an error to handle, not a silent death.
public struct StandardOutput: TextOutputStream, ByteSink, Sendable {
    /// The buffer behind the value and its copies.
    // A Mutex, because live commands write from tasks; BufferedWriter is not Sendable, the
    // Mutex makes the one shared instance safe.
    private final class Buffer: Sendable {
        let writer: Mutex<BufferedWriter>
        init(_ descriptor: FileDescriptor) { writer = Mutex(BufferedWriter(descriptor)) }
    }

    private let buffer: Buffer
    /// The program a failed write's line on standard error names (`geo`).
    public let program: String

    /// The process's standard output, for `program`.
    public init(program: String) { self.init(program: program, descriptor: .standardOutput) }

    /// Output to `descriptor` (a file or pipe a test reads back) by the same rules.
    public init(program: String, descriptor: FileDescriptor) {
        self.program = program
        buffer = Buffer(descriptor)
    }

    /// Appends the UTF-8 of `string` (flushed when the buffer fills).
    public func write(_ string: String) {
        buffer.writer.withLock { out in
            out.write(string)
            check(out)
        }
    }

    /// Appends `bytes` (GPX writers).
    public func write(_ bytes: UnsafeRawBufferPointer) {
        let copy = [UInt8](bytes) // a Sendable value may enter the lock, a borrowed pointer may not
        buffer.writer.withLock { out in
            copy.withUnsafeBytes { out.write($0) }
            check(out)
        }
    }

    /// Runs `body` on the buffer itself, under the lock once: for hot paths that append many
    /// small pieces without building a `String` (`geo nmea decode` writes each fix's digits
    /// straight into it). A failed write ends the process as for every other write.
    public func withBuffer(_ body: (inout BufferedWriter) -> Void) {
        buffer.writer.withLock { out in
            body(&out)
            check(out)
        }
    }

    /// Hands what is buffered to the operating system now: live streams call it per update,
    /// and `geo` after every command, so no command ends with unwritten or unchecked output.
    public func flush() {
        buffer.writer.withLock { out in
            out.flush()
            check(out)
        }
    }

    /// Ignores `SIGPIPE` for the whole process: writes to a closed pipe fail with `EPIPE`.
    public static func ignoreBrokenPipeSignal() { signal(SIGPIPE, SIG_IGN) }

    /// Ends the process after a failed write (see the type's rules); returns when all is well.
    private func check(_ out: borrowing BufferedWriter) {
        if let error = out.error { exit(afterFailedWrite: error) }
    }

    /// Ends the process as quietly as a reader gone from standard output does when a command
    /// failed because its reader went away from another pipe (`-o /dev/stdout | head`): `error`
    /// is an `EPIPE` `SystemIOError`, or a library wrapped the `EPIPE` in its own error
    /// (``BrokenPipe``); returns otherwise.
    public func exitQuietlyAfterBrokenPipe(_ error: any Error) {
        if let failure = error as? SystemIOError, failure.code == .brokenPipe { exit(afterFailedWrite: failure) }
        if BrokenPipe.hasOccurred { exit(afterFailedWrite: SystemIOError(.brokenPipe, "write failed", errno: EPIPE)) }
    }

    /// Ends the process after a failed write to standard output: quietly by `SIGPIPE` when the
    /// reader is gone, else with one line on standard error and status 74.
    public func exit(afterFailedWrite error: SystemIOError) -> Never {
        if error.code == .brokenPipe {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_UNBLOCK, &pipeSignal, nil) // a mask inherited from the parent
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
        }
        try? FileDescriptor.standardError.writeAll("\(program): cannot write standard output: \(String(cString: strerror(error.errno)))\n")
        terminate(74)
    }
}

/// C's `exit`, under a name `StandardOutput.exit(afterFailedWrite:)` does not shadow.
private func terminate(_ status: Int32) -> Never { exit(status) }

extension StandardOutput {
    /// Runs `body` with the sink for a program's output path (`geo … -o PATH`): this standard
    /// output for nil or `-`, else the file by `AtomicFileReplacement`'s rules — a regular file
    /// is replaced only once `body` succeeds, a FIFO or device is written through, a symbolic
    /// link to a regular file is refused.
    /// - Throws: `SystemIOError` naming the path, or what `body` throws (the old file then stays).
    public func withOutput(_ path: String?, _ body: (inout any ByteSink) throws -> Void) throws {
        guard let path, path != "-" else {
            var sink: any ByteSink = self
            return try body(&sink)
        }
        let replacement = try AtomicFileReplacement(replacing: path)
        do {
            var sink: any ByteSink = FileSink(replacement.descriptor, path: path)
            try body(&sink)
            try replacement.commit()
            try replacement.descriptor.close()
        } catch {
            replacement.discard()
            throw error
        }
    }

    /// Writes `bytes` to a program's output path by ``withOutput(_:_:)``'s rules (`geo snapshot -o`).
    /// - Throws: as ``withOutput(_:_:)``.
    public func write(_ bytes: [UInt8], to path: String?) throws {
        try withOutput(path) { sink in try bytes.withUnsafeBytes { try sink.write($0) } }
    }
}
