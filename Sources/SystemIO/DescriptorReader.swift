import Foundation
import Synchronization
import Platform

/// Reads a descriptor (socket, serial device, pipe, file) on a dedicated thread and hands out
/// the bytes as an async sequence, so a blocking `read(2)` never occupies a Swift concurrency
/// thread. `poll(2)` with a 100 ms timeout lets `cancel()` stop the thread promptly.
///
/// A file or a pipe (standard input) is read no faster than its consumer takes the chunks: the
/// thread stays at most `aheadLimit` chunks ahead, so no byte is dropped and memory is bounded
/// whatever the file's size. A live source (socket, serial or other device) is not held back,
/// since the sender does not wait for us: when its consumer lags, the oldest of the 4,096
/// chunks waiting are dropped, and the consumer sees the newest data.
public final class DescriptorReader: Sendable {
    private let descriptor: FileDescriptor
    private let cancelled = Atomic(false)
    /// Chunks a file or pipe is read ahead of its consumer (each up to 64 KiB).
    public static let aheadLimit = 16

    /// Takes ownership of `descriptor`; it is closed when reading ends.
    public init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }

    /// The bytes as they arrive, in chunks of up to 64 KiB; ends at end of file, throws
    /// `SystemIOError` on a read error. Call once.
    public func chunks() -> Chunks {
        var status = stat()
        let paced = fstat(descriptor.rawValue, &status) == 0
            && (status.st_mode & S_IFMT == S_IFREG || status.st_mode & S_IFMT == S_IFIFO)
        let pacer = paced ? Pacer() : nil
        let (stream, output) = AsyncThrowingStream.makeStream(of: [UInt8].self, bufferingPolicy: paced ? .unbounded : .bufferingNewest(4096))
        let fd = descriptor
        let thread = Thread { [self] in
            defer { try? fd.close() }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while !cancelled.load(ordering: .relaxed) {
                if let pacer, !pacer.mayReadAhead() { continue }
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
                    pacer?.handedOut()
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
        return Chunks(stream: stream, pacer: pacer)
    }

    /// Stops reading; the thread closes the descriptor within about 100 ms.
    public func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Chunks handed out and not yet taken by the consumer, and a wake-up for the reading
    /// thread when the consumer takes one.
    final class Pacer: Sendable {
        private let outstanding = Atomic(0)
        private let taken = DispatchSemaphore(value: 0)

        /// Whether the thread may read another chunk; waits up to 100 ms for the consumer (so
        /// that the thread still sees `cancel()`) when `aheadLimit` are waiting.
        func mayReadAhead() -> Bool {
            if outstanding.load(ordering: .acquiring) < DescriptorReader.aheadLimit { return true }
            _ = taken.wait(timeout: .now() + .milliseconds(100))
            return outstanding.load(ordering: .acquiring) < DescriptorReader.aheadLimit
        }

        func handedOut() { outstanding.add(1, ordering: .releasing) }

        func tookOne() {
            outstanding.subtract(1, ordering: .releasing)
            taken.signal()
        }
    }

    /// The chunks of `chunks()`; taking one lets a paced reader read one more.
    public struct Chunks: AsyncSequence, Sendable {
        let stream: AsyncThrowingStream<[UInt8], any Error>
        let pacer: Pacer?

        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
            let pacer: Pacer?

            public mutating func next() async throws -> [UInt8]? {
                let chunk = try await base.next()
                if chunk != nil { pacer?.tookOne() }
                return chunk
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator(), pacer: pacer) }
    }
}
