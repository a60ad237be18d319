import CZlib

/// zlib (RFC 1950) and gzip (RFC 1952) through the system library.
enum Zlib {
    /// Inflates a complete zlib stream whose decompressed size is known (a PBF blob's `raw_size`).
    /// - Throws: `WireError` when the stream is bad or does not decompress to exactly `size` bytes.
    static func inflate(_ input: UnsafeRawBufferPointer, size: Int) throws(WireError) -> [UInt8] {
        guard size >= 0 else { throw WireError("negative raw_size") }
        var produced = 0
        var status: Int32 = Z_OK
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
                inflateEnd(&stream)
            }
            // Bytes past `produced` are never read: count is what zlib wrote.
            count = produced
        }
        guard status == Z_STREAM_END else { throw WireError("zlib inflate failed (status \(status))") }
        guard produced == size else { throw WireError("zlib data inflated to \(produced) bytes, raw_size says \(size)") }
        return output
    }

    /// Deflates `input` into a zlib stream at the given level (0–9).
    static func deflate(_ input: [UInt8], level: Int32 = 6) -> [UInt8] {
        var bound = compressBound(uLong(input.count))
        var out = [UInt8](repeating: 0, count: Int(bound))
        let status = input.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                compress2(dst.baseAddress, &bound, src.baseAddress, uLong(src.count), level)
            }
        }
        // compress2 cannot fail with a compressBound-sized output and a valid level.
        precondition(status == Z_OK, "Broken contract: compress2 failed with \(status)")
        out.removeSubrange(Int(bound)...)
        return out
    }
}

/// A streaming gzip (or zlib, detected from the header) decompressor for `.osm.gz`;
/// concatenated gzip members are decoded one after another (RFC 1952 §2.2).
final class GzipInflater {
    private var stream = z_stream()
    private var finished = false

    init() throws(WireError) {
        // 15 window bits + 32: detect gzip or zlib headers automatically (zlib.h, inflateInit2).
        let status = inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw WireError("inflateInit2 failed (status \(status))") }
    }

    deinit { inflateEnd(&stream) }

    /// Inflates `input` fully, appending output to `output`.
    func inflate(_ input: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(WireError) {
        guard input.count > 0 else { return }
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(input.count)
        var chunk = [UInt8](repeating: 0, count: 256 * 1024)
        while stream.avail_in > 0 {
            if finished {
                // Another gzip member follows the one that ended.
                guard inflateReset(&stream) == Z_OK else { throw WireError("inflateReset failed") }
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
            case Z_OK, Z_BUF_ERROR: if produced == 0 && stream.avail_in > 0 && status == Z_BUF_ERROR { throw WireError("gzip stream stalled") }
            default: throw WireError("gzip data is corrupt (zlib status \(status))")
            }
        }
    }

    /// Whether the last member ended cleanly (false means the file was cut).
    var isComplete: Bool { finished }
}
