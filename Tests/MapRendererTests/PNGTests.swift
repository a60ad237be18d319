import Foundation
import GeoTestSupport
import MapRenderer
import Testing
import ZlibCompression

/// This suite's committed fixtures.
func fixtureURL(_ name: String) -> URL {
    Fixtures.packageRoot.appendingPathComponent("Tests/MapRendererTests/Fixtures").appendingPathComponent(name)
}

/// An outside program; nil (skip) outside CI when missing, a failure under CI.
func tool(_ name: String) throws -> URL? {
    if let url = GeoProcess.which(name) { return url }
    if Fixtures.isCI { throw FixtureError.missing("program \(name) (scripts/setup.sh installs it)") }
    print("note: skipping, \(name) is not installed")
    return nil
}

/// PNGs written by ImageMagick 6.9 (every colour type, 1/8/16-bit, palette, Adam7) beside its
/// own decoding of each, `convert X.png -depth 8 rgba:X.rgba`: the decoder must agree.
@Test(arguments: ["rgb8", "rgba8", "rgba16", "palette8", "gray8", "gray1", "graya8", "interlaced"])
func decode_imageMagickFiles_matchItsPixels(name: String) throws {
    let png = try PNG.decode([UInt8](Data(contentsOf: fixtureURL("png/\(name).png"))))
    let reference = [UInt8](try Data(contentsOf: fixtureURL("png/\(name).rgba")))
    #expect(png.width == 37 && png.height == 23)
    let expected = try Pixmap(width: 37, height: 23, straightRGBA: reference)
    // Compared premultiplied (transparent pixels carry no colour); 16-bit samples round to 8.
    let worst = zip(png.bytes, expected.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
    #expect(worst <= 1, "\(name): largest channel difference \(worst)")
}

/// A test image: gradients with a band of partial alpha.
private func sampleImage(opaque: Bool) throws -> Pixmap {
    var rgba = [UInt8]()
    for y in 0..<41 {
        for x in 0..<67 {
            rgba += [UInt8(x * 3), UInt8(y * 6), UInt8((x * y) & 0xFF), opaque || y < 20 ? 255 : UInt8(y * 6)]
        }
    }
    return try Pixmap(width: 67, height: 41, straightRGBA: rgba)
}

@Test(arguments: [true, false])
func encode_thenDecode_roundTrips(opaque: Bool) throws {
    let image = try sampleImage(opaque: opaque)
    let decoded = try PNG.decode(try PNG.encode(image))
    #expect(decoded.width == image.width && decoded.height == image.height)
    // Premultiplied → straight → premultiplied may move a channel by one step.
    let worst = zip(decoded.bytes, image.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
    #expect(worst <= (opaque ? 0 : 1))
}

@Test func encode_passesPngcheck_andPythonZlib() async throws {
    guard let pngcheck = try tool("pngcheck"), let python = try tool("python3") else { return }
    try await withTemporaryDirectory { dir in
        for opaque in [true, false] {
            let image = try sampleImage(opaque: opaque)
            let file = dir.appendingPathComponent("out-\(opaque).png")
            try Data(try PNG.encode(image)).write(to: file)
            let check = try await GeoProcess.run(pngcheck, ["-v", file.path])
            #expect(check.status == 0, "pngcheck: \(check.stdout)")
            // An independent reading with Python's zlib: inflate the IDATs, undo each row's
            // filter, compare with our straight RGBA.
            let script = """
            import sys, zlib, struct
            b = open(sys.argv[1], 'rb').read(); i = 8; idat = b''
            while i < len(b):
                n, t = struct.unpack('>I4s', b[i:i+8]); d = b[i+8:i+8+n]
                assert zlib.crc32(t + d) == struct.unpack('>I', b[i+8+n:i+12+n])[0]
                if t == b'IHDR': w, h, depth, ct = struct.unpack('>IIBB', d[:10])
                if t == b'IDAT': idat += d
                i += 12 + n
            bpp = 3 if ct == 2 else 4; raw = zlib.decompress(idat); rb = w * bpp; prev = bytearray(rb); out = bytearray()
            for y in range(h):
                f = raw[y*(rb+1)]; row = bytearray(raw[y*(rb+1)+1:(y+1)*(rb+1)])
                for k in range(rb):
                    a = row[k-bpp] if k >= bpp else 0; u = prev[k]; c = prev[k-bpp] if k >= bpp else 0
                    p = a + u - c; pa, pb, pc = abs(p-a), abs(p-u), abs(p-c)
                    pr = [0, a, u, (a+u)//2, a if pa <= pb and pa <= pc else (u if pb <= pc else c)][f]
                    row[k] = (row[k] + pr) & 255
                for x in range(w): out += row[x*bpp:x*bpp+3] + (bytes([row[x*bpp+3]]) if bpp == 4 else b'\\xff')
                prev = row
            sys.stdout.write(out.hex())
            """
            let py = try await GeoProcess.run(python, ["-c", script, file.path])
            #expect(py.status == 0, "python: \(py.stderr)")
            let theirs = py.stdout
            let ours = image.unpremultipliedBytes.map { String(format: "%02x", $0) }.joined()
            #expect(theirs == ours, "opaque \(opaque)")
        }
    }
}

@Test func decode_damagedFiles_areTypedErrorsWithOffsets() throws {
    let good = try PNG.encode(try sampleImage(opaque: false))
    func error(_ bytes: [UInt8]) -> RenderError? {
        #expect(throws: RenderError.self) { try PNG.decode(bytes) }
    }
    #expect(error([])?.code == .invalidPNG)
    #expect(error(Array("GIF89a..".utf8))?.offset == 0)
    // Every truncation is an error, never a crash.
    for n in stride(from: 0, to: good.count, by: max(1, good.count / 97)) {
        #expect(error(Array(good[0..<n])) != nil, "truncated at \(n)")
    }
    // A flipped bit in the IDAT data fails the chunk's CRC, which names the offset.
    var flipped = good
    flipped[60] ^= 0x10
    let crc = error(flipped)
    #expect(crc?.code == .invalidPNG && crc?.message.contains("CRC") == true && crc?.offset != nil)
    // An IHDR claiming 100000 × 1: a size error before any allocation.
    var wide = good
    wide.replaceSubrange(16..<20, with: [0, 1, 0x86, 0xA0])
    let ihdrCRC = wide.withUnsafeBytes { Zlib.crc32(UnsafeRawBufferPointer(rebasing: $0[12..<29])) }
    wide.replaceSubrange(29..<33, with: [UInt8(ihdrCRC >> 24), UInt8(ihdrCRC >> 16 & 0xFF), UInt8(ihdrCRC >> 8 & 0xFF), UInt8(ihdrCRC & 0xFF)])
    #expect(error(wide)?.code == .invalidSize)
}
