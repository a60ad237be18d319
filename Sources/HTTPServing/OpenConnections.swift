import NIOCore
import Synchronization

/// The connections a `LocalServer` holds open at once, all its hosts together: at most the
/// process's open-file limit less `reservedDescriptors`, so that clients can never take the
/// descriptors the process itself opens. At the limit every `open` fails with `EMFILE`, and
/// some callers do not survive that: libdispatch's worker monitor, reading `/proc/TID/stat`
/// once a second while a global queue has work, ends the process when the open fails
/// (`_dispatch_workq_count_runnable_workers`, "workq: registered worker exited prematurely";
/// `geo serve-tracking` under tracking.sh with 5,000 devices and 100 subscribers on 5,200
/// descriptors died of it, 2026-12-05); the stores' files and connections and
/// `/proc/self/statm` need them too. A connection over the bound is closed as soon as it is
/// accepted and counted (`HTTPRefusals.Reason.connections`), as nginx turns clients away past
/// `worker_connections`. (Holding the listeners' accepts instead, so that new clients wait in
/// the listen queue, was tried: a client accepted by the read already asked for went unserved.)
final class OpenConnections: Sendable {
    /// Descriptors kept from the clients for the process's own: the event loops' (3 each), the
    /// stores' (SQLite's 3 a connection, PostgreSQL's pool), the listeners, and room for what
    /// opens a file meanwhile. (Teltonika's TCP connections are not this server's and not
    /// counted here: they share the reserve and what the clients leave.)
    static let reservedDescriptors = 128

    /// The most connections open at once.
    let maximum: Int
    private let open = Atomic<Int>(0)

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// The soft `RLIMIT_NOFILE` less `reservedDescriptors`, at least 16.
    static var underTheOpenFileLimit: Int {
        let soft = OpenFileLimit.current.soft
        return soft == Int.max ? Int.max : max(16, soft - reservedDescriptors)
    }

    /// Counts `channel` as open until it closes; false when that makes more than `maximum`.
    func admit(_ channel: any Channel) -> Bool {
        let count = open.wrappingAdd(1, ordering: .relaxed).newValue
        channel.closeFuture.whenComplete { [self] _ in open.wrappingSubtract(1, ordering: .relaxed) }
        return count <= maximum
    }
}
