import CZlib

/// A streaming decompressor for zlib or gzip data arriving in chunks (an `.osm.gz` file read
/// 1 MiB at a time). Concatenated gzip members are decoded one after another (RFC 1952 §2.2).
///
/// Not `Sendable`: it owns zlib's mutable stream state; use it from one task at a time.
public final class Inflater {
    /// The container around the deflate data.
    public struct Format: Hashable, Sendable {
        fileprivate let windowBits: Int32
        /// RFC 1950 zlib streams.
        public static let zlib = Format(windowBits: 15)
        /// RFC 1952 gzip members.
        public static let gzip = Format(windowBits: 15 + 16)
        /// zlib or gzip, told apart by the header (zlib.h, inflateInit2: 15 + 32).
        public static let automatic = Format(windowBits: 15 + 32)
    }

    private var stream = z_stream()
    private var finished = false
    private var chunk = [UInt8](repeating: 0, count: 256 * 1024)

    /// - Throws: `CompressionError.outOfMemory` when zlib cannot allocate its state.
    public init(format: Format = .automatic) throws(CompressionError) {
        let status = inflateInit2_(&stream, format.windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw Zlib.streamError(status, "inflateInit2") }
    }

    deinit { inflateEnd(&stream) }

    /// Inflates all of `input`, appending the output to `output`.
    /// - Throws: `CompressionError.corrupt` for bad data (the output before it has been appended).
    /// - Complexity: O(input size + output size).
    public func inflate(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(CompressionError) {
        guard input.count > 0 else { return }
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        while stream.avail_in > 0 {
            if finished {
                // Another member follows the one that ended.
                let reset = inflateReset(&stream)
                guard reset == Z_OK else { throw Zlib.streamError(reset, "inflateReset") }
                finished = false
            }
            let status = chunk.withUnsafeMutableBufferPointer { buf -> Int32 in
                stream.next_out = buf.baseAddress
                stream.avail_out = uInt(buf.count)
                return CZlib.inflate(&stream, Z_NO_FLUSH)
            }
            let produced = chunk.count - Int(stream.avail_out)
            output.append(contentsOf: chunk[0..<produced])
            switch status {
            case Z_STREAM_END: finished = true
            case Z_OK: break
            case Z_BUF_ERROR where produced > 0 || stream.avail_in == 0: break
            default: throw Zlib.streamError(status == Z_BUF_ERROR ? Z_DATA_ERROR : status, "inflate")
            }
        }
    }

    /// Whether the input so far ends exactly at a stream's end marker (false means it was cut).
    public var isComplete: Bool { finished }

    /// Inflates a whole buffer, requiring it to end at a stream's end.
    static func inflateAll(_ input: [UInt8], format: Format) throws(CompressionError) -> [UInt8] {
        let inflater = try Inflater(format: format)
        var output: [UInt8] = []
        output.reserveCapacity(input.count * 3)
        try input.withUnsafeBytes { raw in Result { () throws(CompressionError) in try inflater.inflate(raw, into: &output) } }.get()
        guard inflater.isComplete else {
            throw CompressionError(.truncated, "the input ends before the stream's end marker (\(input.count) bytes read)")
        }
        return output
    }
}
