import CLibDeflate

/// Decompresses one complete zlib stream (RFC 1950) of known decompressed size after another
/// (the blobs of a PBF file, each with its `raw_size`) with libdeflate, which decodes a whole
/// buffer at once, checks the Adler-32 trailer like zlib, and takes about half zlib's time.
/// The decompressor and one output buffer, grown to the largest stream seen, are kept from
/// stream to stream, so a stream costs no allocation and no fresh pages once the buffer is warm.
///
/// Not `Sendable`: it owns the decompressor and the buffer; one thread at a time.
public final class SizedInflater {
    private let decompressor: OpaquePointer
    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// - Throws: `CompressionError.outOfMemory` when libdeflate cannot allocate its state.
    public init() throws(CompressionError) {
        guard let decompressor = libdeflate_alloc_decompressor() else {
            throw CompressionError(.outOfMemory, "libdeflate: cannot allocate a decompressor")
        }
        self.decompressor = decompressor
    }

    deinit {
        libdeflate_free_decompressor(decompressor)
        buffer.deallocate()
    }

    /// Decompresses `input`, which must decompress to exactly `size` bytes, and calls `body`
    /// with the bytes; they are valid only inside `body` (the next call overwrites them).
    /// - Throws: `CompressionError` `.corrupt` for bad or truncated data or a bad checksum
    ///   (libdeflate does not tell truncation apart), `.sizeMismatch` when it decompresses to
    ///   another size, `.invalidArgument` for a negative size; or what `body` throws.
    /// - Complexity: O(size).
    public func inflate<R>(_ input: UnsafeRawBufferPointer, size: Int, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        guard size >= 0 else { throw CompressionError(.invalidArgument, "negative size \(size)") }
        if size > buffer.count {
            buffer.deallocate()
            buffer = .allocate(byteCount: size, alignment: 16)
        }
        var produced = 0
        // libdeflate reads no input byte for an empty input and writes none for a zero size, but wants pointers.
        var placeholder: UInt8 = 0
        let result = withUnsafeMutableBytes(of: &placeholder) { fallback in
            libdeflate_zlib_decompress(decompressor, input.baseAddress ?? UnsafeRawPointer(fallback.baseAddress!), input.count,
                                       buffer.baseAddress ?? fallback.baseAddress!, size, &produced)
        }
        switch result {
        case LIBDEFLATE_SUCCESS:
            guard produced == size else {
                throw CompressionError(.sizeMismatch, "zlib data inflated to \(produced) bytes, expected \(size)")
            }
        case LIBDEFLATE_INSUFFICIENT_SPACE:
            throw CompressionError(.sizeMismatch, "zlib data inflates to more than \(size) bytes")
        default:
            throw CompressionError(.corrupt, "zlib data is corrupt or truncated")
        }
        return try body(UnsafeRawBufferPointer(rebasing: buffer[..<size]))
    }
}
