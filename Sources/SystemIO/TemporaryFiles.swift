import Platform
import Synchronization

/// Temporary files that must not outlive the process: the hidden files `AtomicFileReplacement`
/// writes before its rename, and `TemporaryFile`s (a tile build's scratch files). Each is
/// registered while it exists; `removeOnTermination()` makes SIGINT, SIGTERM and SIGHUP (and
/// `exit`) remove every registered file before the process ends, so Ctrl-C in the middle of a
/// long write leaves nothing behind (SIGKILL cannot be caught: a killed process still leaves
/// its files, and `AtomicFileReplacement` replaces a stale one on the next run).
///
/// The signal handler only calls `unlink(2)`, `signal(2)` and `raise(3)`, which are
/// async-signal-safe (POSIX.1-2017 §2.4.3), on a NUL-separated list of paths that every
/// registration publishes whole through one atomic pointer; it then re-raises the signal with
/// its default action, so the exit status still tells which signal ended the process.
public enum TemporaryFiles {
    /// The registered paths, in registration order (duplicates allowed: one entry per registration).
    private static let paths = Mutex<[String]>([])
    /// The published list, as an address (0: none): the paths as C strings one after another,
    /// then an empty one.
    private static let published = Atomic<UInt>(0)
    /// Set by the handler before it reads `published`: a list it may be reading is never freed.
    private static let removing = Atomic<Bool>(false)
    private static let installed = Atomic<Bool>(false)

    /// Registers `path` for removal on a terminating signal or `exit`.
    public static func register(_ path: String) {
        paths.withLock { list in
            list.append(path)
            publish(list)
        }
    }

    /// Removes one registration of `path` (after the file was renamed into place or removed).
    public static func unregister(_ path: String) {
        paths.withLock { list in
            guard let i = list.lastIndex(of: path) else { return }
            list.remove(at: i)
            publish(list)
        }
    }

    /// The paths registered now.
    public static var registered: [String] { paths.withLock { $0 } }

    /// Installs the removal on SIGINT, SIGTERM and SIGHUP (each only when its action is still the
    /// default one: a signal the parent ignored, as `nohup` does, stays ignored) and at `exit`.
    /// Idempotent; for a command-line tool's start, before it writes files.
    public static func removeOnTermination() {
        guard !installed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        // The handler must not run a lazy global's first initialisation (not signal-safe).
        _ = published.load(ordering: .relaxed)
        _ = removing.load(ordering: .relaxed)
        atexit { TemporaryFiles.removeAll() }
        for number in [SIGINT, SIGTERM, SIGHUP] {
            let previous = signal(number) { number in
                TemporaryFiles.removeAll()
                _ = signal(number, SIG_DFL)
                _ = raise(number)
            }
            // SIG_DFL is the null handler: anything else was chosen by the parent (SIG_IGN) and stays.
            if let previous, unsafeBitCast(previous, to: Int.self) != 0 { _ = signal(number, previous) }
        }
    }

    /// Unlinks every registered file (from a signal handler: no allocation, no lock).
    private static func removeAll() {
        removing.store(true, ordering: .sequentiallyConsistent)
        guard var p = UnsafeMutablePointer<CChar>(bitPattern: published.load(ordering: .sequentiallyConsistent)) else { return }
        while p.pointee != 0 {
            unlink(p)
            p += strlen(p) + 1
        }
    }

    /// Publishes `list` for the handler, freeing the list it replaces unless the handler has started.
    private static func publish(_ list: [String]) {
        let count = list.reduce(1) { $0 + $1.utf8.count + 1 }
        let block = UnsafeMutablePointer<CChar>.allocate(capacity: count)
        var at = block
        for path in list {
            for byte in path.utf8 { at.pointee = CChar(bitPattern: byte); at += 1 }
            at.pointee = 0
            at += 1
        }
        at.pointee = 0
        let old = published.exchange(UInt(bitPattern: block), ordering: .sequentiallyConsistent)
        if let old = UnsafeMutablePointer<CChar>(bitPattern: old), !removing.load(ordering: .sequentiallyConsistent) { old.deallocate() }
    }
}

/// A new file with a unique name (`<prefix>-<pid>-<serial><suffix>` in `directory`, created
/// with `O_EXCL`, mode 0600, so two processes or two builds never share one and a planted link
/// is never followed), registered with `TemporaryFiles` until `remove()`.
public struct TemporaryFile: Sendable {
    public let path: String
    /// Open for reading and writing, close-on-exec.
    public let descriptor: FileDescriptor

    /// - Throws: `SystemIOError` naming `directory` when it cannot be written.
    public init(in directory: String, prefix: String, suffix: String = "") throws(SystemIOError) {
        var attempt = 0
        while true {
            let path = "\(directory == "/" ? "" : directory)/\(prefix)-\(getpid())-\(Self.nextSerial())\(suffix)"
            do {
                descriptor = try FileDescriptor(opening: path, .readWrite, options: [.create, .exclusive], permissions: 0o600)
                self.path = path
                TemporaryFiles.register(path)
                return
            } catch where error.code == .alreadyExists && attempt < 100 {
                attempt += 1 // a stale file of an earlier process with the same id
            } catch {
                var named = error
                named.message = "cannot create a temporary file in"
                named.path = directory
                throw named
            }
        }
    }

    /// Removes the file's name and hands over its descriptor: the file lives until that
    /// closes, also when the process is killed (`MappedScratchFile`).
    public func unlinked() -> FileDescriptor {
        unlink(path)
        TemporaryFiles.unregister(path)
        return descriptor
    }

    /// Closes and removes the file.
    public func remove() {
        try? descriptor.close()
        unlink(path)
        TemporaryFiles.unregister(path)
    }

    private static let serial = Mutex<Int>(0)
    private static func nextSerial() -> Int { serial.withLock { $0 += 1; return $0 } }
}
