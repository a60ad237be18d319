public import NIOCore
import Synchronization

/// The connections servers hold open at once (a `LocalServer`'s, all its hosts together): at most the
/// process's open-file limit less `reservedDescriptors`, so that clients can never take the
/// descriptors the process itself opens. At the limit every `open` fails with `EMFILE`, and
/// some callers do not survive that: libdispatch's worker monitor, reading `/proc/TID/stat`
/// once a second while a global queue has work, ends the process when the open fails
/// (`_dispatch_workq_count_runnable_workers`, "workq: registered worker exited prematurely";
/// `geo serve-tracking` under tracking.sh with 5,000 devices and 100 subscribers on 5,200
/// descriptors died of it, 2026-12-05); the stores' files and connections and
/// `/proc/self/statm` need them too. A connection over the bound is closed as soon as it is
/// accepted and counted (`HTTPRefusals.Reason.connections`; the Teltonika listener's
/// `tracking_teltonika_closed_total{reason="connections"}`), as nginx turns clients away past
/// `worker_connections`. (Holding the listeners' accepts instead, so that new clients wait in
/// the listen queue, was tried: a client accepted by the read already asked for went unserved.)
public final class OpenConnections: Sendable {
    /// Descriptors kept from the clients for the process's own: the event loops' (3 each), the
    /// stores' (SQLite's 3 a connection, PostgreSQL's pool), the listeners, and room for what
    /// opens a file meanwhile.
    static let reservedDescriptors = 128

    /// The process's: every server that is given no bound of its own counts its connections
    /// here (each `LocalServer`, the tracking server's Teltonika listener), so that together they
    /// stay `reservedDescriptors` under the open-file limit as it is at each accept (a server may
    /// raise it after this is made: `OpenFileLimit.raiseSoftToHard`).
    public static let process = OpenConnections(maximum: nil)

    /// The bound given, or nil for the one under the open-file limit.
    private let fixedMaximum: Int?
    private let open = Atomic<Int>(0)

    /// - Parameter maximum: the most connections open at once; nil for the soft open-file limit
    ///   less `reservedDescriptors`, read at each accept.
    public init(maximum: Int?) {
        fixedMaximum = maximum
    }

    /// The most connections open at once.
    public var maximum: Int { fixedMaximum ?? Self.underTheOpenFileLimit }

    /// The soft `RLIMIT_NOFILE` less `reservedDescriptors`, at least 16.
    static var underTheOpenFileLimit: Int {
        let soft = OpenFileLimit.current.soft
        return soft == Int.max ? Int.max : max(16, soft - reservedDescriptors)
    }

    /// Counts `channel` as open until it closes; false when that makes more than `maximum`:
    /// the caller closes it then (it is counted until it has closed).
    public func admit(_ channel: any Channel) -> Bool {
        let count = open.wrappingAdd(1, ordering: .relaxed).newValue
        channel.closeFuture.whenComplete { [self] _ in open.wrappingSubtract(1, ordering: .relaxed) }
        return count <= maximum
    }
}
