/// Where an `XMLScanner` gets its bytes: a file, a socket, memory, a decompressor.
///
/// Format modules keep their own public source protocol (`GPXByteSource`) and adapt it; the
/// scanner calls `read(into:)` once per window refill (256 KiB by default).
public protocol XMLByteSource {
    /// Copies up to `buffer.count` bytes into `buffer` and returns how many; 0 means the end.
    /// - Throws: whatever the underlying I/O throws; the scanner reports it as
    ///   `XMLError.Code.io` with the error as `underlying`.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}
