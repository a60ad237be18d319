import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file descriptor (socket, serial device, pipe, file) on a dedicated thread and hands
/// out the bytes as an async stream, so blocking `read(2)` never occupies a Swift concurrency
/// thread. `poll(2)` with a 100 ms timeout lets `cancel()` stop the thread promptly.
final class DescriptorReader: Sendable {
    private let fd: Int32
    private let cancelled = Atomic(false)

    /// Takes ownership of `fd`; it is closed when reading ends.
    init(fd: Int32) { self.fd = fd }

    /// The bytes as they arrive, in chunks; ends at end of file, throws `PositioningError.io`
    /// on a read error. Call once.
    func chunks() -> AsyncThrowingStream<[UInt8], any Error> {
        let (stream, output) = AsyncThrowingStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(4096))
        let fd = self.fd
        let thread = Thread { [self] in
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !cancelled.load(ordering: .relaxed) {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&pfd, 1, 100)
                if ready == 0 { continue }
                if ready < 0 {
                    if errno == EINTR { continue }
                    output.finish(throwing: PositioningError(.io, "poll failed: \(String(cString: strerror(errno)))"))
                    return
                }
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    output.yield(Array(buffer[0..<n]))
                } else if n == 0 {
                    output.finish()
                    return
                } else if errno != EINTR && errno != EAGAIN {
                    output.finish(throwing: PositioningError(.io, "read failed: \(String(cString: strerror(errno)))"))
                    return
                }
            }
            output.finish()
        }
        output.onTermination = { [self] _ in cancel() }
        thread.start()
        return stream
    }

    /// Stops reading; the thread closes the descriptor within about 100 ms.
    func cancel() { cancelled.store(true, ordering: .relaxed) }
}

/// Opening the byte endpoints position sources read from.
enum Endpoint {
    /// Connects a TCP socket to `host:port` (a 5 s connect timeout).
    /// - Throws: `PositioningError.sourceUnavailable` when nothing listens there.
    static func connectTCP(host: String, port: Int) throws(PositioningError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw PositioningError(.sourceUnavailable, "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let ai = entry {
            // Close-on-exec: a child process the app spawns must not inherit the connection.
            let fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), ai.pointee.ai_protocol)
            if fd >= 0 {
                var timeout = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                if connect(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0 { return fd }
                lastError = errno
                close(fd)
            }
            entry = ai.pointee.ai_next
        }
        throw PositioningError(.sourceUnavailable, "cannot connect to \(host):\(port): \(String(cString: strerror(lastError)))")
    }

    /// Opens a serial device raw (8N1, no flow control) at `baud`.
    /// - Throws: `.denied` without permission, `.sourceUnavailable` when it does not exist,
    ///   `.invalidConfiguration` for an unsupported baud rate.
    static func openSerial(path: String, baud: Int) throws(PositioningError) -> Int32 {
        let speeds: [Int: speed_t] = [4800: speed_t(B4800), 9600: speed_t(B9600), 19200: speed_t(B19200),
                                      38400: speed_t(B38400), 57600: speed_t(B57600), 115200: speed_t(B115200),
                                      230400: speed_t(B230400)]
        guard let speed = speeds[baud] else {
            throw PositioningError(.invalidConfiguration, "unsupported baud rate \(baud); use one of \(speeds.keys.sorted())")
        }
        let fd = try openReadable(path, flags: O_RDWR | O_NOCTTY)
        var tio = termios()
        if tcgetattr(fd, &tio) == 0 {
            cfmakeraw(&tio)
            cfsetispeed(&tio, speed)
            cfsetospeed(&tio, speed)
            tio.c_cflag |= tcflag_t(CLOCAL | CREAD)
            tcsetattr(fd, TCSANOW, &tio)
        }
        // Not a terminal (a pipe or a file standing in for a device): read it as it is.
        return fd
    }

    /// Opens a file for reading (`-` is standard input).
    static func openFile(path: String) throws(PositioningError) -> Int32 {
        if path == "-" { return fcntl(0, F_DUPFD_CLOEXEC, 0) }
        return try openReadable(path, flags: O_RDONLY)
    }

    private static func openReadable(_ path: String, flags: Int32) throws(PositioningError) -> Int32 {
        let fd = open(path, flags | O_CLOEXEC) // not inherited by child processes
        guard fd >= 0 else {
            let e = errno
            let reason = String(cString: strerror(e))
            if e == EACCES || e == EPERM { throw PositioningError(.denied, "permission denied on \(path): \(reason)") }
            throw PositioningError(.sourceUnavailable, "cannot open \(path): \(reason)")
        }
        return fd
    }
}
