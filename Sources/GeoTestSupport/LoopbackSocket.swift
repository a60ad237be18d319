import Platform

/// Whether `call` (`bind` or `connect`) succeeds for a new TCP socket and 127.0.0.1:`port`; the
/// socket is closed after it.
func loopbackSocket(port: Int, succeeds call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}
