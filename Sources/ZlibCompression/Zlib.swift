import CLibDeflate
import CZlib

/// Whole-buffer zlib (RFC 1950) and raw-size-known inflate, through the system library
/// (https://zlib.net).
public enum Zlib {
    /// Inflates a complete zlib stream whose decompressed size is known in advance (a PBF
    /// blob's `raw_size`), in one call into an exactly sized buffer.
    /// - Parameter size: the decompressed size, bytes.
    /// - Throws: `CompressionError` `.corrupt` for bad data, `.truncated` when the input ends
    ///   early, `.sizeMismatch` when it inflates to another size, `.invalidArgument` for a
    ///   negative size.
    /// - Complexity: O(size).
    public static func inflate(_ input: UnsafeRawBufferPointer, size: Int) throws(CompressionError) -> [UInt8] {
        guard size >= 0 else { throw CompressionError(.invalidArgument, "negative size \(size)") }
        var produced = 0
        var status: Int32 = Z_OK
        var trailing = false
        let output = [UInt8](unsafeUninitializedCapacity: max(size, 1)) { buffer, count in
            var stream = z_stream()
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            stream.next_out = buffer.baseAddress
            stream.avail_out = uInt(size)
            status = inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
            if status == Z_OK {
                status = CZlib.inflate(&stream, Z_FINISH)
                produced = Int(stream.total_out)
                // Output full but input left: the stream is longer than `size`.
                trailing = status == Z_BUF_ERROR && stream.avail_out == 0 && stream.avail_in > 0
                inflateEnd(&stream)
            }
            // Bytes past `produced` are never read: count is what zlib wrote.
            count = produced
        }
        if status == Z_STREAM_END {
            guard produced == size else {
                throw CompressionError(.sizeMismatch, "zlib data inflated to \(produced) bytes, expected \(size)")
            }
            return output
        }
        if trailing { throw CompressionError(.sizeMismatch, "zlib data inflates to more than \(size) bytes") }
        throw streamError(status, "zlib inflate")
    }

    /// Inflates a complete zlib stream of unknown decompressed size, at most `limit` bytes.
    /// - Parameter limit: most bytes it may inflate to (`Inflater`'s rule).
    /// - Throws: `CompressionError` `.corrupt`, `.truncated` or `.tooLarge`.
    /// - Complexity: O(min(output size, limit)).
    public static func inflate(_ input: [UInt8], limit: Int) throws(CompressionError) -> [UInt8] {
        try Inflater.inflateAll(input, format: .zlib, limit: limit)
    }

    /// Deflates `input` into one zlib stream.
    /// - Parameter level: 0 (stored) … 9 (smallest); 6 is zlib's default.
    /// - Complexity: O(input size).
    public static func deflate(_ input: UnsafeRawBufferPointer, level: Int = 6) throws(CompressionError) -> [UInt8] {
        guard (0...9).contains(level) else { throw CompressionError(.invalidArgument, "compression level \(level) is outside 0…9") }
        var bound = compressBound(uLong(input.count))
        var out = [UInt8](repeating: 0, count: Int(bound))
        let status = out.withUnsafeMutableBufferPointer { dst in
            compress2(dst.baseAddress, &bound, input.baseAddress?.assumingMemoryBound(to: Bytef.self), uLong(input.count), Int32(level))
        }
        // compress2 fails only without memory, given a compressBound-sized output and a valid level.
        guard status == Z_OK else { throw streamError(status, "zlib deflate") }
        out.removeSubrange(Int(bound)...)
        return out
    }

    /// Deflates `input` into one zlib stream (see `deflate(_:level:)` over a buffer).
    public static func deflate(_ input: [UInt8], level: Int = 6) throws(CompressionError) -> [UInt8] {
        try input.withUnsafeBytes { raw in Result { () throws(CompressionError) in try deflate(raw, level: level) } }.get()
    }

    /// The CRC-32 (ISO 3309 / IEEE 802.3, the one gzip, PNG and the road-graph file use) of
    /// `bytes`, continuing from `initial` (the CRC of what came before; 0 to start).
    /// Computed by libdeflate (carry-less multiplication where the CPU has it): the same value
    /// as zlib's `crc32`, whose 1.2 % of `geo match`'s CPU on the dev Kubička drives it removes.
    /// - Complexity: O(n).
    public static func crc32(_ bytes: UnsafeRawBufferPointer, continuing initial: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress else { return initial }
        return libdeflate_crc32(initial, base, bytes.count)
    }

    /// The `CompressionError` for a zlib return code other than success.
    static func streamError(_ status: Int32, _ operation: String) -> CompressionError {
        switch status {
        case Z_MEM_ERROR: CompressionError(.outOfMemory, "\(operation): out of memory", zlibStatus: status)
        case Z_BUF_ERROR: CompressionError(.truncated, "\(operation): the input ends before the stream's end", zlibStatus: status)
        case Z_STREAM_ERROR: CompressionError(.invalidArgument, "\(operation): invalid parameters", zlibStatus: status)
        default: CompressionError(.corrupt, "\(operation): the data is corrupt", zlibStatus: status)
        }
    }
}

/// gzip files (RFC 1952): whole-buffer compression and decompression.
public enum Gzip {
    /// Compresses `input` as one gzip member (no file name, modification time 0), readable by
    /// `gzip -d`.
    /// - Parameter level: 0 (stored) … 9 (smallest); 6 is gzip's default.
    /// - Complexity: O(input size).
    public static func compress(_ input: [UInt8], level: Int = 6) throws(CompressionError) -> [UInt8] {
        guard (0...9).contains(level) else { throw CompressionError(.invalidArgument, "compression level \(level) is outside 0…9") }
        var stream = z_stream()
        // 15 window bits + 16: write a gzip header and trailer instead of zlib's (zlib.h, deflateInit2).
        let initStatus = deflateInit2_(&stream, Int32(level), Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                                       ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard initStatus == Z_OK else { throw Zlib.streamError(initStatus, "gzip deflateInit2") }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(input.count)))
        var out = [UInt8](repeating: 0, count: bound)
        let status = input.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                stream.next_in = UnsafeMutablePointer(mutating: src.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(src.count)
                stream.next_out = dst.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(dst.count)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        // deflateBound is enough for one Z_FINISH call (zlib.h).
        guard status == Z_STREAM_END else { throw Zlib.streamError(status, "gzip deflate") }
        out.removeSubrange(Int(stream.total_out)...)
        return out
    }

    /// Decompresses a gzip file: every member, one after another (RFC 1952 §2.2), at most
    /// `limit` bytes in all.
    /// - Parameter limit: most bytes it may decompress to (`Inflater`'s rule).
    /// - Throws: `CompressionError` `.corrupt` (bad header, data or CRC), `.truncated` (the
    ///   input ends inside a member) or `.tooLarge` (past `limit`).
    /// - Complexity: O(min(output size, limit)).
    public static func decompress(_ input: [UInt8], limit: Int) throws(CompressionError) -> [UInt8] {
        try Inflater.inflateAll(input, format: .gzip, limit: limit)
    }
}
