import Platform

/// Whether anything in a folder may have changed since the last question, asked for the cost
/// of one system call: on Linux an inotify(7) watch on the folder (a file created, renamed in
/// or out, deleted, written or its attributes changed — an atomic rename over a file shows as
/// `IN_MOVED_TO`), read without blocking; so a server can `stat(2)` a file it serves only when
/// its folder saw something, instead of on every request. The kernel queues an event before
/// the renaming call returns, so a question asked after a replacement always says yes.
///
/// Where there is no inotify (other systems, or the per-user watch limit reached) every
/// question says yes, and the caller checks as it would without the watch.
public final class FolderChangeWatch: Sendable {
    /// The inotify descriptor, or −1 without a watch.
    private let descriptor: Int32

    /// Watches `folder` (an empty string is the working directory).
    public init(folder: String) {
        #if os(Linux)
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        let events = UInt32(IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_ATTRIB
            | IN_DELETE_SELF | IN_MOVE_SELF)
        if fd >= 0, inotify_add_watch(fd, folder.isEmpty ? "." : folder, events) < 0 {
            close(fd)
            descriptor = -1
        } else {
            descriptor = fd
        }
        #else
        descriptor = -1
        #endif
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Whether the folder saw anything since the last call (the events are consumed); true
    /// without a watch or when the watch cannot be read.
    public func changed() -> Bool {
        guard descriptor >= 0 else { return true }
        var any = false
        // Event records are 16 bytes plus a name of at most NAME_MAX + 1: a 4 KiB read takes
        // at least one whole record (inotify(7)).
        return withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 8) { buffer in
            while true {
                let n = read(descriptor, buffer.baseAddress, buffer.count)
                if n > 0 { any = true; continue }
                if n < 0, errno == EINTR { continue }
                return any || n < 0 && errno != EAGAIN && errno != EWOULDBLOCK
            }
        }
    }
}
