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
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
