import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a descriptor (socket, serial device, pipe, file) on a dedicated thread and hands out
/// the bytes as an async stream, so a blocking `read(2)` never occupies a Swift concurrency
/// thread. `poll(2)` with a 100 ms timeout lets `cancel()` stop the thread promptly.
public final class DescriptorReader: Sendable {
    private let descriptor: FileDescriptor
    private let cancelled = Atomic(false)

    /// Takes ownership of `descriptor`; it is closed when reading ends.
    public init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }

    /// The bytes as they arrive, in chunks of up to 64 KiB; ends at end of file, throws
    /// `SystemIOError` on a read error. Call once.
    public func chunks() -> AsyncThrowingStream<[UInt8], any Error> {
        let (stream, output) = AsyncThrowingStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(4096))
        let fd = descriptor
        let thread = Thread { [self] in
            defer { try? fd.close() }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !cancelled.load(ordering: .relaxed) {
                var pfd = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
                let ready = poll(&pfd, 1, 100)
                if ready == 0 { continue }
                if ready < 0 {
                    if errno == EINTR { continue }
                    output.finish(throwing: SystemIOError.last("poll failed"))
                    return
                }
                do throws(SystemIOError) {
                    let n = try buffer.withUnsafeMutableBytes { raw in Result { () throws(SystemIOError) in try fd.read(into: raw) } }.get()
                    if n == 0 {
                        output.finish()
                        return
                    }
                    output.yield(Array(buffer[0..<n]))
                } catch {
                    if error.errno == EAGAIN { continue }
                    output.finish(throwing: error)
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
    public func cancel() { cancelled.store(true, ordering: .relaxed) }
}
