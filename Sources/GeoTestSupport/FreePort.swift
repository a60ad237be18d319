import Synchronization
import Platform

/// Loopback TCP ports for the servers a test starts on a port it names before they bind (gpsd,
/// PostgreSQL, `geo serve`, the live page).
///
/// The kernel's choice for port 0 is free when asked, but the kernel may choose it again, for a
/// parallel test's probe or for an outgoing connection's local port, before the server binds it;
/// two tests then talk to one server (CI saw `geo track` read another test's gpsd replay). So
/// these ports come from below Linux's ephemeral range (`ip_local_port_range`, 32768–60999 by
/// default, which `connect` and port 0 draw from), each handed out once per process, starting
/// at a point set by the process id so that two test processes seldom meet, and each checked
/// free by binding it.
public enum FreePort {
    /// The lowest and one past the highest port handed out.
    static let range = 10_000..<32_768
    private static let next = Mutex(range.lowerBound + Int(getpid()) * 7_919 % range.count)

    /// A loopback port nothing listens on now, not handed out before by this process.
    public static func take() -> Int {
        while true {
            let port = next.withLock { next in
                defer { next = next + 1 == range.upperBound ? range.lowerBound : next + 1 }
                return next
            }
            if isBindable(port) { return port }
        }
    }

    /// Whether a socket can bind 127.0.0.1:`port` now.
    static func isBindable(_ port: Int) -> Bool {
        loopbackSocket(port: port) { bind($0, $1, $2) }
    }
}
