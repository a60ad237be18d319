import GeoCore
import MapData
import MapRenderer
import MapStyle
import Platform

/// Symbol collision in scale space, as Mapbox GL JS's `CollisionTile` (v0.3x, the renderer
/// that drew the render suite's expectations) does it: each tile keeps its own index; a label
/// gets the smallest map scale at which its boxes clear every box placed before it in that
/// tile, and shows when that scale's zoom, in the tenths of a zoom level the symbol vertices
/// store, is at most the camera's zoom. Two 26 px icon boxes (22 px images, `icon-padding` 2)
/// therefore show down to 24.3 px apart at an integer zoom (26 / 2^0.1).
extension StylePainter {
    /// One collision box: its anchor in layout pixels (device pixels at the layout zoom, the
    /// tiles' integer zoom) and its extent round the anchor in device pixels (labels keep
    /// their size on screen while the map scales).
    struct CollisionBox {
        var anchor: Point
        var box: Box
    }

    struct CollisionTile {
        /// GL JS's `minScale` and `maxScale`: a label clear of everything shows from half the
        /// layout scale; one that needs twice the layout scale or more never shows.
        static let minScale = 0.5, maxScale = 2.0
        static let cell = 64.0
        private var cells: [Int64: [Int]] = [:]
        private var boxes: [(CollisionBox, scale: Double)] = []

        private static func cells(_ b: Box) -> [Int64] {
            // Boxes far off the image share the edge cells: bounded work for any coordinate.
            func index(_ v: Double) -> Int64 { v.isNaN ? 0 : Int64((v / cell).rounded(.down).clamped(-1024, 1024)) }
            let x0 = index(b.minX), x1 = max(x0, index(b.maxX)), y0 = index(b.minY), y1 = max(y0, index(b.maxY))
            var out: [Int64] = []
            for x in x0...x1 { for y in y0...y1 { out.append(x << 32 | (y & 0xFFFF_FFFF)) } }
            return out
        }

        private static func absolute(_ c: CollisionBox) -> Box {
            Box(minX: c.anchor.x + c.box.minX, minY: c.anchor.y + c.box.minY, maxX: c.anchor.x + c.box.maxX, maxY: c.anchor.y + c.box.maxY)
        }

        /// The smallest scale (from `minScale`) at which `shape` clears the boxes it overlaps
        /// at the layout scale, counting a blocking box only from the scale it shows at
        /// (GL JS's `placeCollisionFeature` / `getPlacementScale`); `maxScale` or more: never.
        func placementScale(_ shape: [CollisionBox]) -> Double {
            var scale = Self.minScale
            for c in shape {
                let query = Self.absolute(c)
                var seen = Set<Int>()
                for cell in Self.cells(query) {
                    for i in cells[cell] ?? [] where seen.insert(i).inserted {
                        let (blocking, blockingScale) = boxes[i]
                        let b = Self.absolute(blocking)
                        // Touching boxes overlap (grid-index's inclusive test).
                        guard query.minX <= b.maxX, query.minY <= b.maxY, query.maxX >= b.minX, query.maxY >= b.minY else { continue }
                        let dx = c.anchor.x - blocking.anchor.x, dy = c.anchor.y - blocking.anchor.y
                        // The scales at which the new box sits left of, right of, above and under the old one.
                        var s1 = (blocking.box.minX - c.box.maxX) / dx, s2 = (blocking.box.maxX - c.box.minX) / dx
                        var s3 = (blocking.box.minY - c.box.maxY) / dy, s4 = (blocking.box.maxY - c.box.minY) / dy
                        if s1.isNaN || s2.isNaN { (s1, s2) = (1, 1) }
                        if s3.isNaN || s4.isNaN { (s3, s4) = (1, 1) }
                        let free = min(max(s1, s2), max(s3, s4))
                        if free > scale, free >= blockingScale { scale = free }
                        if scale >= Self.maxScale { return scale }
                    }
                }
            }
            return scale
        }

        /// Keeps `shape`, placed at `scale`, to block the labels after it (not when it never shows).
        mutating func insert(_ shape: [CollisionBox], scale: Double) {
            guard scale < Self.maxScale else { return }
            for c in shape {
                boxes.append((c, scale))
                for cell in Self.cells(Self.absolute(c)) { cells[cell, default: []].append(boxes.count - 1) }
            }
        }
    }

    /// Whether a label placed at `scale` shows at the camera's zoom: its placement zoom
    /// (layout zoom + log2 scale) stored in tenths, rounded down, at most the zoom in tenths.
    func showsAtZoom(_ scale: Double) -> Bool {
        guard scale <= CollisionTile.maxScale else { return false }
        let placementZoom = max(0, layoutZoom + log2(scale))
        return (placementZoom * 10 + 1e-9).rounded(.down) <= zoom * 10 + 1e-9
    }

    /// The collision index a label anchored at `p` (device pixels) belongs to: its vector
    /// tile's, or for GeoJSON the tile at the layout zoom (at most 18, the source's default
    /// maximum) under the anchor, as GL JS tiles GeoJSON before placing its symbols.
    func collisionTileKey(_ f: RenderFeature, at p: Point) -> String {
        if let t = f.tile { return "\(t.z)/\(t.x)/\(t.y)" }
        let w = screen.world(p.x, p.y)
        let n = pow(2, min(layoutZoom, 18))
        func cell(_ v: Double) -> Int { Int((v * n).rounded(.down).clamped(-1e9, 1e9)) }
        return "geojson/\(cell(w.x))/\(cell(w.y))"
    }

    /// The zoom symbols are laid out and collided at: the tiles' integer zoom.
    var layoutZoom: Double { max(0, zoom.rounded(.down)) }

    /// Device pixels on screen per layout pixel.
    var layoutToScreen: Double { pow(2, zoom - layoutZoom) }
}
