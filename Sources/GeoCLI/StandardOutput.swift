import Platform
import GPXCodec
import Synchronization
import SystemIO
import GeoBase

/// The one path by which `geo`'s results leave on standard output: a process-wide
/// `BufferedWriter`, written with `print(_:to:)`, `write(_:)`, or as a `ByteSink`.
///
/// A failed write ends the process at once, the way a Unix filter ends (so a stream such as
/// `simulate` or `track` stops instead of computing into the void):
/// - the reader is gone (`EPIPE`, `geo … | head`): a quiet exit by `SIGPIPE`, shell status 141,
///   as `cat` or `yes` end; nothing on standard error;
/// - anything else (`ENOSPC`, `EIO` …): one line on standard error,
///   `geo: cannot write standard output: No space left on device`, and exit status 74
///   (`EX_IOERR`, sysexits.h).
///
/// `SIGPIPE` itself is ignored while `geo` runs (``ignoreBrokenPipeSignal()``), so a closed
/// socket or pipe elsewhere is an error to handle, not a silent death.
struct StandardOutput: TextOutputStream, ByteSink {
    /// The buffer behind every `StandardOutput` value.
    // A Mutex, because the live commands write from tasks; BufferedWriter is not Sendable, the
    // Mutex makes the one shared instance safe.
    private static let shared = Mutex(BufferedWriter(.standardOutput))

    /// Appends the UTF-8 of `string` (flushed when the buffer fills).
    func write(_ string: String) {
        Self.shared.withLock { out in
            out.write(string)
            Self.check(out)
        }
    }

    /// Appends `bytes` (GPX writers).
    func write(_ bytes: UnsafeRawBufferPointer) {
        let copy = [UInt8](bytes) // a Sendable value may enter the lock, a borrowed pointer may not
        Self.shared.withLock { out in
            copy.withUnsafeBytes { out.write($0) }
            Self.check(out)
        }
    }

    /// Runs `body` on the buffer itself, under the lock once: for hot paths that append many
    /// small pieces without building a `String` (`geo nmea decode` writes each fix's digits
    /// straight into it). A failed write ends the process as for every other write.
    func withBuffer(_ body: (inout BufferedWriter) -> Void) {
        Self.shared.withLock { out in
            body(&out)
            Self.check(out)
        }
    }

    /// Appends one line: `text` and a newline.
    func line(_ text: String) { write(text + "\n") }

    /// Hands what is buffered to the operating system now (live streams call it per update).
    func flush() { Self.flush() }

    /// Writes out what is buffered; called by `Geo.runAsMain` after every command, so no
    /// command ends with unwritten or unchecked output.
    static func flush() {
        shared.withLock { out in
            out.flush()
            check(out)
        }
    }

    /// Ignores `SIGPIPE` for the whole process: writes to a closed pipe fail with `EPIPE`.
    static func ignoreBrokenPipeSignal() { signal(SIGPIPE, SIG_IGN) }

    /// Ends the process after a failed write (see the type's rules); returns when all is well.
    private static func check(_ out: borrowing BufferedWriter) {
        if let error = out.error { exit(afterFailedWrite: error) }
    }

    /// Ends the process after a failed write to standard output: quietly by `SIGPIPE` when the
    /// reader is gone, else with one line on standard error and status 74.
    static func exit(afterFailedWrite error: SystemIOError) -> Never {
        if error.code == .brokenPipe {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_UNBLOCK, &pipeSignal, nil) // a mask inherited from the parent
            signal(SIGPIPE, SIG_DFL)
            raise(SIGPIPE)
        }
        try? FileDescriptor.standardError.writeAll("geo: cannot write standard output: \(String(cString: strerror(error.errno)))\n")
        terminate(74)
    }
}

/// Standard output for every command's results (``StandardOutput``).
let standardOutput = StandardOutput()

/// C's `exit`, under a name `StandardOutput.exit(afterFailedWrite:)` does not shadow.
private func terminate(_ status: Int32) -> Never { exit(status) }

/// A number with `places` decimals, for human-readable output (C's `%.*f`, ``FixedDecimal``).
func format(_ value: Double, _ places: Int) -> String { FixedDecimal.string(value, decimals: places) }
