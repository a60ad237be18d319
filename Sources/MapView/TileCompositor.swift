import MapCamera
import MapRenderer

/// Composes the ground of a flat camera's frame (Mercator at any tilt and orientation) from
/// cached raster tiles: each screen pixel's ground position comes from `GroundRows` (affine
/// along a row, so one addition per pixel), and its colour is the bilinear sample of the tile
/// under it (texel centres at half pixels). Rows above the horizon and ground beyond Web
/// Mercator's ±85.0511° are `space`. Where a tile of the frame's zoom is not drawn yet, the
/// tile standing in for it (`RasterTileCache.standIns(for:)`) is sampled at its own scale.
enum TileCompositor {
    /// The tile zoom (256-pixel tiles, the renderer's zoom) for a camera zoom (512-pixel
    /// world): the renderer's zoom rounded, so tiles are drawn 0.71–1.41 times their size.
    static func tileZoom(cameraZoom: Double) -> Int { min(max(Int((cameraZoom + 1).rounded()), 0), 24) }

    /// The tiles the pixels of a `width × height` view fall in: per row, the stretch of the
    /// row over each tile column, and the tile rows that stretch crosses.
    static func tiles(_ rows: GroundRows, width: Int, height: Int, zoom z: Int, base: WorldBase.Detail) -> Set<RasterTileCache.Key> {
        let side = Double(RasterTileCache.side), scale = side * Double(1 << z), n = 1 << z
        var keys = Set<RasterTileCache.Key>()
        let first = 0.5, last = Double(width) - 0.5 // the row's first and last pixel centres
        for py in 0..<height {
            guard let r = rows.row(atY: Double(py) + 0.5) else { continue }
            let u = { (x: Double) in (r.x + r.dx * x) * scale }, v = { (x: Double) in (r.y + r.dy * x) * scale }
            let u0 = u(first), u1 = u(last)
            let tx0 = Int((min(u0, u1) / side).rounded(.down)), tx1 = Int((max(u0, u1) / side).rounded(.down))
            for tx in tx0...tx1 {
                // The part of the row over column tx: where u is within [tx, tx + 1) tiles.
                var a = first, b = last
                let du = (u1 - u0) / (last - first)
                if du != 0 {
                    let xa = first + (Double(tx) * side - u0) / du, xb = first + (Double(tx + 1) * side - u0) / du
                    a = max(first, min(xa, xb)); b = min(last, max(xa, xb))
                }
                let va = v(a), vb = v(b)
                let ty0 = max(Int((min(va, vb) / side).rounded(.down)), 0), ty1 = min(Int((max(va, vb) / side).rounded(.down)), n - 1)
                guard ty0 <= ty1 else { continue }
                for ty in ty0...ty1 { keys.insert(RasterTileCache.Key(z: z, x: ((tx % n) + n) % n, y: ty, base: base)) }
            }
        }
        return keys
    }

    /// Where a stretch of ground is sampled from: a tile's pixels, the region (pixels of the
    /// frame's tile zoom from the world's top-left corner, unwrapped) they serve, and how the
    /// frame's tile pixels map onto the tile's (its top-left corner there, its pixels per one).
    struct Source {
        var texels: UnsafeMutablePointer<UInt32>?
        var minU, maxU, minV, maxV: Double
        var originU = 0.0, originV = 0.0, scale = 1.0

        func contains(_ u: Double, _ v: Double) -> Bool { u >= minU && u < maxU && v >= minV && v < maxV }
    }

    /// The source of the ground at (u, v), pixels of tile zoom z from the world's top-left
    /// corner: the frame's tile there, else the first of its stand-ins held in `tiles`, else
    /// none (sky) for that tile's region.
    static func source(u: Double, v: Double, zoom z: Int, base: WorldBase.Detail, tiles: [RasterTileCache.Key: RasterTileCache.Tile]) -> Source {
        let side = Double(RasterTileCache.side)
        let tx = Int((u / side).rounded(.down)), ty = Int(v / side), n = 1 << z
        let key = RasterTileCache.Key(z: z, x: ((tx % n) + n) % n, y: ty, base: base)
        let own = Source(texels: nil, minU: Double(tx) * side, maxU: Double(tx + 1) * side, minV: Double(ty) * side, maxV: Double(ty + 1) * side)
        if let tile = tiles[key] {
            var s = own
            s.texels = tile.pixels.baseAddress
            s.originU = s.minU; s.originV = s.minV
            return s
        }
        for standIn in RasterTileCache.standIns(for: key) {
            // Its pixels per pixel of the frame's zoom, 2^(its zoom − the frame's).
            let f = Double(sign: .plus, exponent: standIn[0].z - z, significand: 1)
            let sx = Int((u * f / side).rounded(.down)), sy = Int(v * f / side)
            let m = 1 << standIn[0].z
            let k = RasterTileCache.Key(z: standIn[0].z, x: ((sx % m) + m) % m, y: sy, base: standIn[0].base)
            guard let tile = tiles[k] else { continue }
            var s = own
            s.texels = tile.pixels.baseAddress
            s.originU = Double(sx) * side / f; s.originV = Double(sy) * side / f
            s.scale = f
            if standIn[0].z > z {
                // A child serves only its own quarter.
                s.minU = s.originU; s.maxU = s.originU + side / f
                s.minV = s.originV; s.maxV = s.originV + side / f
            }
            return s
        }
        return own
    }

    /// Fills `pixmap` (the view's size) with the ground sampled from `tiles`, which holds the
    /// tiles `tiles(_:width:height:zoom:base:)` named or their stand-ins.
    /// - Complexity: O(pixels); one tile lookup where the row enters another tile.
    static func compose(_ rows: GroundRows, zoom z: Int, base: WorldBase.Detail, tiles: [RasterTileCache.Key: RasterTileCache.Tile], space: Color, into pixmap: inout Pixmap) {
        let side = Double(RasterTileCache.side), stored = RasterTileCache.storedSide
        let scale = side * Double(1 << z), worldHeight = side * Double(1 << z)
        let sky = Pixmap.premultiplied(space)
        let skyPixel = UInt32(sky.0) | UInt32(sky.1) << 8 | UInt32(sky.2) << 16 | UInt32(sky.3) << 24
        let width = pixmap.width, height = pixmap.height
        pixmap.withUnsafeMutableBytes { bytes in
            let out = UnsafeMutableRawPointer(bytes.baseAddress!)
            for py in 0..<height {
                let row = out + py * width * 4
                guard let r = rows.row(atY: Double(py) + 0.5) else {
                    for px in 0..<width { row.storeBytes(of: skyPixel, toByteOffset: px * 4, as: UInt32.self) }
                    continue
                }
                // Tile pixels from the world's top-left corner, at the row's first pixel centre, per pixel.
                let u0 = (r.x + r.dx * 0.5) * scale, du = r.dx * scale
                let v0 = (r.y + r.dy * 0.5) * scale, dv = r.dy * scale
                var src = Source(texels: nil, minU: 0, maxU: -1, minV: 0, maxV: -1)
                for px in 0..<width {
                    let u = u0 + du * Double(px), v = v0 + dv * Double(px)
                    guard v >= 0, v < worldHeight else {
                        row.storeBytes(of: skyPixel, toByteOffset: px * 4, as: UInt32.self)
                        continue
                    }
                    if !src.contains(u, v) { src = source(u: u, v: v, zoom: z, base: base, tiles: tiles) }
                    guard let texels = src.texels else {
                        row.storeBytes(of: skyPixel, toByteOffset: px * 4, as: UInt32.self)
                        continue
                    }
                    // The sample in the stored tile's pixels (gutter included), texel centres at halves.
                    let s = (u - src.originU) * src.scale + 0.5, t = (v - src.originV) * src.scale + 0.5
                    let i = min(max(Int(s), 0), stored - 2), j = min(max(Int(t), 0), stored - 2)
                    let fx = UInt32(min(max((s - Double(i)) * 256, 0), 256)), fy = UInt32(min(max((t - Double(j)) * 256, 0), 256))
                    let p = texels + (j * stored + i)
                    let top = lerp(p[0], p[1], fx), bottom = lerp(p[stored], p[stored + 1], fx)
                    row.storeBytes(of: lerp(top, bottom, fy), toByteOffset: px * 4, as: UInt32.self)
                }
            }
        }
    }

    /// `a + (b − a)·f/256` on each of the four bytes of two RGBA pixels, rounded: two bytes at
    /// a time in the 16-bit lanes of a 32-bit word.
    @inline(__always)
    private static func lerp(_ a: UInt32, _ b: UInt32, _ f: UInt32) -> UInt32 {
        let g = 256 - f, mask: UInt32 = 0x00FF_00FF, half: UInt32 = 0x0080_0080
        let rb = (((a & mask) &* g &+ (b & mask) &* f &+ half) >> 8) & mask
        let ga = ((((a >> 8) & mask) &* g &+ ((b >> 8) & mask) &* f &+ half) >> 8) & mask
        return rb | ga << 8
    }
}
