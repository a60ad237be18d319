import CZlib

/// A streaming decompressor for zlib or gzip data arriving in chunks (an `.osm.gz` file read
/// 1 MiB at a time). Concatenated gzip members are decoded one after another (RFC 1952 §2.2).
///
/// Every inflate in LocationKit goes through here (or `SizedInflater`, whose output size is
/// fixed in advance) with a stated `limit`: deflate expands up to 1032:1 (RFC 1951's longest
/// match, 258 bytes, costs at least 2 bits), so a few megabytes of input can ask for
/// gigabytes. Past the limit `inflate` throws `.tooLarge` having appended at most `limit`
/// bytes in all; a caller that consumes the output as it goes (a streaming parser) passes
/// `Int.max` and bounds its own buffer by feeding small inputs.
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

    /// Most bytes the whole stream may inflate to (all members together).
    public let limit: Int
    /// Bytes inflated so far (all members together).
    public private(set) var totalOut = 0
    /// Compressed bytes consumed so far: where in the input the next byte is.
    public private(set) var totalIn = 0

    private var stream = z_stream()
    private var finished = false
    private var chunk = [UInt8](repeating: 0, count: 256 * 1024)

    /// - Parameter limit: most bytes the stream may inflate to, ≥ 0.
    /// - Throws: `CompressionError.outOfMemory` when zlib cannot allocate its state,
    ///   `.invalidArgument` for a negative limit.
    public init(format: Format = .automatic, limit: Int) throws(CompressionError) {
        guard limit >= 0 else { throw CompressionError(.invalidArgument, "negative inflate limit \(limit)") }
        self.limit = limit
        let status = inflateInit2_(&stream, format.windowBits, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw Zlib.streamError(status, "inflateInit2") }
    }

    deinit { inflateEnd(&stream) }

    /// Inflates all of `input`, appending the output to `output`.
    /// - Throws: `CompressionError` `.corrupt` for bad data, `.tooLarge` when the stream
    ///   inflates past `limit` (the message gives the compressed offset); the output before
    ///   the error has been appended.
    /// - Complexity: O(input size + output size).
    public func inflate(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(CompressionError) {
        guard input.count > 0 else { return }
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        defer { totalIn += input.count - Int(stream.avail_in) }
        while stream.avail_in > 0 {
            if finished {
                // Another member follows the one that ended.
                let reset = inflateReset(&stream)
                guard reset == Z_OK else { throw Zlib.streamError(reset, "inflateReset") }
                finished = false
            }
            // One byte of room past the limit tells a stream that reaches it from one that passes it.
            let remaining = limit - totalOut
            let room = remaining >= chunk.count ? chunk.count : remaining + 1
            let status = chunk.withUnsafeMutableBufferPointer { buf -> Int32 in
                stream.next_out = buf.baseAddress
                stream.avail_out = uInt(room)
                return CZlib.inflate(&stream, Z_NO_FLUSH)
            }
            let produced = room - Int(stream.avail_out)
            guard totalOut + produced <= limit else {
                output.append(contentsOf: chunk[0..<(limit - totalOut)])
                let at = totalIn + input.count - Int(stream.avail_in)
                totalOut = limit
                throw CompressionError(.tooLarge, "inflates past the limit of \(limit) bytes (at compressed byte \(at))")
            }
            totalOut += produced
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

    /// Inflates a whole buffer, requiring it to end at a stream's end and to inflate to at most
    /// `limit` bytes.
    static func inflateAll(_ input: [UInt8], format: Format, limit: Int) throws(CompressionError) -> [UInt8] {
        let inflater = try Inflater(format: format, limit: limit)
        var output: [UInt8] = []
        output.reserveCapacity(min(limit, input.count * 3))
        try input.withUnsafeBytes { raw in Result { () throws(CompressionError) in try inflater.inflate(raw, into: &output) } }.get()
        guard inflater.isComplete else {
            throw CompressionError(.truncated, "the input ends before the stream's end marker (\(input.count) bytes read)")
        }
        return output
    }
}
