import MapCamera
import MapRenderer

/// Composes the ground of a flat camera's frame (Mercator at any tilt and orientation) from
/// cached raster tiles: each screen pixel's ground position comes from `GroundRows` (affine
/// along a row, so one addition per pixel), and its colour is the bilinear sample of the tile
/// under it (texel centres at half pixels). Rows above the horizon and ground beyond Web
/// Mercator's ±85.0511° are `space`.
enum TileCompositor {
    /// The tile zoom (256-pixel tiles, the renderer's zoom) for a camera zoom (512-pixel
    /// world): the renderer's zoom rounded, so tiles are drawn 0.71–1.41 times their size.
    static func tileZoom(cameraZoom: Double) -> Int { min(max(Int((cameraZoom + 1).rounded()), 0), 24) }

    /// The tiles the pixels of a `width × height` view fall in: per row, the stretch of the
    /// row over each tile column, and the tile rows that stretch crosses.
    static func tiles(_ rows: GroundRows, width: Int, height: Int, zoom z: Int) -> Set<RasterTileCache.Key> {
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
                for ty in ty0...ty1 { keys.insert(RasterTileCache.Key(z: z, x: ((tx % n) + n) % n, y: ty)) }
            }
        }
        return keys
    }

    /// Fills `pixmap` (the view's size) with the ground sampled from `tiles`, which must hold
    /// every tile `tiles(_:width:height:zoom:)` named.
    /// - Complexity: O(pixels); one tile lookup where the row enters another tile.
    static func compose(_ rows: GroundRows, zoom z: Int, tiles: [RasterTileCache.Key: RasterTileCache.Tile], space: Color, into pixmap: inout Pixmap) {
        let side = Double(RasterTileCache.side), stored = RasterTileCache.storedSide
        let scale = side * Double(1 << z), n = 1 << z, worldHeight = side * Double(n)
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
                var column = Int.min, tileRow = Int.min
                var texels: UnsafeMutablePointer<UInt32>?
                for px in 0..<width {
                    let u = u0 + du * Double(px), v = v0 + dv * Double(px)
                    guard v >= 0, v < worldHeight else {
                        row.storeBytes(of: skyPixel, toByteOffset: px * 4, as: UInt32.self)
                        continue
                    }
                    let tx = Int((u / side).rounded(.down)), ty = Int(v / side)
                    if tx != column || ty != tileRow {
                        column = tx; tileRow = ty
                        texels = tiles[RasterTileCache.Key(z: z, x: ((tx % n) + n) % n, y: ty)]?.pixels.baseAddress
                    }
                    guard let texels else {
                        row.storeBytes(of: skyPixel, toByteOffset: px * 4, as: UInt32.self)
                        continue
                    }
                    // The sample in the stored tile's pixels (gutter included), texel centres at halves.
                    let s = u - Double(tx) * side + 0.5, t = v - Double(ty) * side + 0.5
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
