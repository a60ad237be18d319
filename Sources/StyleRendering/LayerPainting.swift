import GeoCore
import MapRenderer
import MapStyle
import Platform

/// Background, fill, line and circle layers, with MapLibre GL's meaning of each paint property
/// (spec v8 "Layers"); sizes are CSS pixels, multiplied by the pixel ratio.
extension StylePainter {
    /// A property's value for a feature (its default where the layer does not set it). A value
    /// the same for every feature is evaluated once per layer and snapshot (``PropertyValues``).
    func value(_ layer: StyleLayer, _ name: String, _ f: RenderFeature? = nil, paint: Bool = true) -> ExpressionValue {
        propertyValues.entry(layer, name, paint: paint, zoom: zoom).value(zoom: zoom, f)
    }

    func number(_ layer: StyleLayer, _ name: String, _ f: RenderFeature? = nil, paint: Bool = true) -> Double {
        value(layer, name, f, paint: paint).numberValue ?? 0
    }

    func color(_ layer: StyleLayer, _ name: String, _ f: RenderFeature? = nil) -> StyleColor {
        value(layer, name, f).colorValue ?? StyleColor(red: 0, green: 0, blue: 0, alpha: 0)
    }

    /// An 8-bit colour with alpha multiplied by `opacity`.
    static func rgba(_ c: StyleColor, opacity: Double) -> Color {
        func byte(_ v: Double) -> UInt8 { UInt8((min(max(v, 0), 1) * 255).rounded()) }
        return Color(red: byte(c.red), green: byte(c.green), blue: byte(c.blue), alpha: byte(c.alpha * min(max(opacity, 0), 1)))
    }

    /// The `*-translate` offset of a feature in device pixels, turned with the map unless anchored to the viewport.
    func translation(_ layer: StyleLayer, _ prefix: String, _ f: RenderFeature) -> Point {
        screen.translation(value(layer, prefix + "-translate", f)) { value(layer, prefix + "-translate-anchor", f) }
    }

    mutating func drawBackground(_ layer: StyleLayer) {
        if value(layer, "background-pattern") != .null {
            if let p = pattern(layer, "background-pattern") { drawBackgroundPattern(p, opacity: number(layer, "background-opacity").clamped(0, 1)) }
            return
        }
        let c = Self.rgba(color(layer, "background-color"), opacity: number(layer, "background-opacity"))
        // An opaque colour over the whole image replaces every pixel: the image cleared to it
        // (the same bytes as the rectangle filled, whose coverage is exactly 1 everywhere)
        // without the rectangle's 65,536 cells a 256² tile summed and composited.
        if c.alpha == 255 { return canvas.clear(to: c) }
        canvas.fill(Path(rectX: 0, y: 0, width: Double(canvas.width), height: Double(canvas.height)), color: c)
    }

    mutating func drawFill(_ f: RenderFeature, _ layer: StyleLayer) {
        guard f.kind == .polygon else { return }
        let held = propertyValues.entries(layer, Self.fillProperties, zoom: zoom)
        // Each entry read in place: taken out of the array, it would be copied (its payload
        // retained and released) at every read. One entry per case, in its order.
        precondition(held.count == Self.fillProperties.count, "fill property entries missing")
        func property(_ p: FillProperty) -> ExpressionValue { held.withUnsafeBufferPointer { $0[p.rawValue].value(zoom: zoom, feature: f) } }
        func color(_ p: FillProperty) -> StyleColor { property(p).colorValue ?? StyleColor(red: 0, green: 0, blue: 0, alpha: 0) }
        let opacity = property(.opacity).numberValue ?? 0
        // The anchor read first: a closure reading the properties would capture the painter,
        // which is then copied whole for the call (a dozen retains per feature).
        let anchor = property(.translateAnchor)
        // The transform read once: the painter's own, read in its closures and calls, would
        // be copied whole each time (its references retained and released).
        let screen = self.screen
        let offset = screen.translation(property(.translate)) { anchor }
        // Each ring projected once, for the fill and its outline.
        let rings = f.polygons.map { $0.map { screen.ring($0, moved: offset) } }
        if property(.pattern) != .null {
            if let p = pattern(layer, "fill-pattern", f) {
                drawFillPattern(p, rings: rings.flatMap { $0.map(\.points) }, opacity: opacity.clamped(0, 1))
                // The antialiased outline is drawn in the pattern too (MapLibre's fill_outline_pattern),
                // or in `fill-outline-color` where the style gives one (its draw_fill.ts: the
                // plain outline program then).
                if property(.antialias) != .boolean(false) {
                    let outline = propertyValues.setPaint(layer, Self.fillOutlineColor)[0] == nil ? nil : Self.rgba(color(.outlineColor), opacity: opacity)
                    for (ring, projected) in zip(f.polygons.flatMap({ $0 }), rings.flatMap({ $0 })) where ring.count >= 2 {
                        if let outline {
                            drawOutline(projected.points, depths: projected.depths, color: outline)
                            continue
                        }
                        // The painter's storage, out of it while the pattern is composited.
                        var c = OutlineCoverage()
                        swap(&c, &outlineStorage)
                        defer { swap(&c, &outlineStorage) }
                        guard outlineCoverage(projected.points, depths: projected.depths, into: &c) else { continue }
                        compositePattern(p, opacity: opacity.clamped(0, 1), coverage: c.values.prefix(c.width * c.height), x0: c.x0, y0: c.y0, width: c.width)
                    }
                }
            }
            return
        }
        // Filled as projected, without a path to build and flatten.
        var contours: [Path.Contour] = []
        for polygon in rings {
            for ring in polygon where ring.points.count >= 3 { contours.append(Path.Contour(points: ring.points, isClosed: true)) }
        }
        // MapLibre fills triangles without antialiasing, then (fill-antialias) draws the outline
        // as GL lines over the edges, in the outline colour or the fill's.
        let fillColor = Self.rgba(color(.color), opacity: opacity)
        canvas.aliased = true
        canvas.fill(contours: contours, color: fillColor, rule: .evenOdd)
        canvas.aliased = false
        if property(.antialias) != .boolean(false) {
            let outlineSet = propertyValues.setPaint(layer, Self.fillOutlineColor)[0] != nil
            let outline = outlineSet ? Self.rgba(color(.outlineColor), opacity: opacity) : fillColor
            for (polygon, projected) in zip(f.polygons, rings) {
                for (ring, p) in zip(polygon, projected) where ring.count >= 2 { drawOutline(p.points, depths: p.depths, color: outline) }
            }
        }
    }

    /// The properties `drawFill` reads for every feature, looked up once per layer
    /// (``PropertyValues/entries(_:_:zoom:)``): their indices in ``fillProperties``.
    enum FillProperty: Int {
        case opacity, pattern, color, antialias, outlineColor, translate, translateAnchor
    }

    /// `fill-outline-color`, whose being set makes the outline its colour rather than the
    /// fill's (``PropertyValues/setPaint(_:_:)``).
    static let fillOutlineColor = ["fill-outline-color"]

    /// The names of ``FillProperty``'s properties, in its order (all paint).
    static let fillProperties: [(name: String, paint: Bool)] = [
        ("fill-opacity", true), ("fill-pattern", true), ("fill-color", true), ("fill-antialias", true), ("fill-outline-color", true),
        ("fill-translate", true), ("fill-translate-anchor", true),
    ]

    /// The outline coverage of a ring (`1 − smoothstep(0, 1, distance)` within a pixel of it),
    /// made in `coverage` (see ``OutlineCoverage``); false when it is off the image.
    /// With `depths`, the distance is to where GL's perspective-correct interpolation puts
    /// the outline shader's `v_pos` at the pixel's place along the edge, not to the edge: a
    /// position on the image interpolated as if it lay in depth, which runs ahead of the
    /// pixel along an edge that recedes, so under tilt such outlines fade out away from
    /// their corners as MapLibre's do.
    func outlineCoverage(_ ring: [Point], depths: [Double]? = nil, into coverage: inout OutlineCoverage) -> Bool {
        Self.outlineCoverage(ring, depths: depths, imageWidth: canvas.width, imageHeight: canvas.height, into: &coverage)
    }

    /// ``outlineCoverage(_:depths:into:)`` on an image `imageWidth × imageHeight` pixels; with
    /// `unchanged`, the pixels of `image` (RGBA bytes) that are already `solid` (an opaque
    /// colour's pixel as a little-endian word) are given no coverage: the opaque colour
    /// composited over them would leave them as they are. `coverage` is cleared first.
    static func outlineCoverage(_ ring: [Point], depths: [Double]? = nil, imageWidth: Int, imageHeight: Int,
                                unchanged: (image: UnsafeRawBufferPointer, solid: UInt32)? = nil, into coverage: inout OutlineCoverage) -> Bool {
        coverage.clear()
        guard let first = ring.first else { return false }
        var minX = first.x, minY = first.y, maxX = first.x, maxY = first.y
        for p in ring { minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y) }
        let x0 = max(0, Int((minX - 1).rounded(.down))), x1 = min(imageWidth, Int((maxX + 1).rounded(.up)))
        let y0 = max(0, Int((minY - 1).rounded(.down))), y1 = min(imageHeight, Int((maxY + 1).rounded(.up)))
        precondition(unchanged.map { $0.image.count >= imageWidth * imageHeight * 4 } ?? true, "outline image smaller than its size")
        let skipped = unchanged?.image, solid = unchanged?.solid ?? 0
        guard x0 < x1, y0 < y1, (x1 - x0) * (y1 - y0) <= 1 << 24 else { return false }
        let w = x1 - x0
        coverage.start(x0: x0, y0: y0, width: w, height: y1 - y0)
        // Every index below lies in the rectangle: x in x0 ..< x1, y in y0 ..< y1.
        coverage.values.withUnsafeMutableBufferPointer { alpha in
            coverage.rows.withUnsafeMutableBufferPointer { rows in
                for i in 0..<(ring.count - 1) {
                    let a = ring[i], b = ring[i + 1]
                    let sx0 = max(x0, LineShading.floor(min(a.x, b.x) - 1)), sx1 = min(x1 - 1, LineShading.ceil(max(a.x, b.x) + 1))
                    let sy0 = max(y0, LineShading.floor(min(a.y, b.y) - 1)), sy1 = min(y1 - 1, LineShading.ceil(max(a.y, b.y) + 1))
                    guard sx0 <= sx1, sy0 <= sy1 else { continue }
                    let v = b - a, l2 = v.x * v.x + v.y * v.y, inverseL2 = l2 > 0 ? 1 / l2 : 0
                    let wa = depths?[i] ?? 1, wb = depths?[i + 1] ?? 1, receding = wa != wb
                    // Pixel centres within 1 of the segment lie within 1 of its line: on each row,
                    // |v.x · (y − a.y) − v.y · (x − a.x)| < |v|, an interval of x; and on the rows whose
                    // centres lie less than 1 above or below it. Tested with ``outlineSlack`` to spare:
                    // a pixel left out is farther than 1 from the segment, where the coverage is 0.
                    let vLength = l2.squareRoot(), steep = abs(v.y) * 64 > vLength
                    let top = min(a.y, b.y) - 1 - Self.outlineSlack, bottom = max(a.y, b.y) + 1 + Self.outlineSlack
                    for y in sy0...sy1 {
                        let cy = Double(y) + 0.5
                        guard cy > top, cy < bottom else { continue }
                        var lo = sx0, hi = sx1
                        if steep {
                            let mid = a.x + v.x * (cy - a.y) / v.y, half = vLength / abs(v.y) + Self.outlineSlack
                            lo = max(sx0, LineShading.floor(mid - half - 0.5) + 1)
                            hi = min(sx1, LineShading.ceil(mid + half - 0.5) - 1)
                            guard lo <= hi else { continue }
                        }
                        // x and y lie in the rectangle, inside the image: the offsets below are
                        // worked out without overflow checks.
                        let r = y &- y0
                        rows[r] = (min(rows[r].lo, lo), max(rows[r].hi, hi))
                        // The pixel centre relative to `a`; the row's first pixel in the image
                        // (bytes) and in the coverage, less the columns before them.
                        let py = cy - a.y
                        let imageRow = y &* imageWidth &* 4, coverageRow = r &* w &- x0
                        for x in lo...hi {
                            if let skipped, UInt32(littleEndian: skipped.load(fromByteOffset: imageRow &+ x &* 4, as: UInt32.self)) == solid { continue }
                            let px = Double(x) + 0.5 - a.x
                            let t = ((px * v.x + py * v.y) * inverseL2).clamped(0, 1)
                            let s = receding ? t / wb / ((1 - t) / wa + t / wb) : t
                            let dx = px - v.x * s, dy = py - v.y * s
                            // Squared distances of 1 or more cover nothing (nor does a distance of 1).
                            let q = dx * dx + dy * dy
                            guard q < 1 else { continue }
                            // 1 − smoothstep(0, 1, d), d already in 0 … 1.
                            let d = q.squareRoot()
                            let c = Float(1 - d * d * (3 - 2 * d))
                            let k = coverageRow &+ x
                            if c > alpha[k] { alpha[k] = c }
                        }
                    }
                }
            }
        }
        return true
    }

    /// How far past the band within 1 of an outline's segment pixel centres are still tested,
    /// pixels (far more than the rounding of the band's bounds; the distance test decides).
    static let outlineSlack = 1.0 / 64

    /// A closed ring drawn as MapLibre's `fill_outline` shader draws it: each pixel whose centre
    /// lies within one pixel of the ring gets `1 − smoothstep(0, 1, distance)` of the colour.
    /// An opaque colour's coverage is not worked out where a pixel already has that colour
    /// (inside a fill of the outline's colour): the image is the same, with less to compute.
    mutating func drawOutline(_ ring: [Point], depths: [Double]? = nil, color: Color) {
        guard color.alpha > 0 else { return }
        let clip = canvas.clip, imageWidth = canvas.width, imageHeight = canvas.height
        // The painter's storage, out of it while the canvas is drawn on.
        var coverage = OutlineCoverage()
        swap(&coverage, &outlineStorage)
        defer { swap(&coverage, &outlineStorage) }
        canvas.withPixmap { image in
            let solid: UInt32? = color.alpha == 255 ? UInt32(color.red) | UInt32(color.green) << 8 | UInt32(color.blue) << 16 | 0xFF00_0000 : nil
            let found = image.bytes.withUnsafeBytes { bytes in
                Self.outlineCoverage(ring, depths: depths, imageWidth: imageWidth, imageHeight: imageHeight, unchanged: solid.map { (bytes, $0) }, into: &coverage)
            }
            guard found else { return }
            let x0 = coverage.x0, y0 = coverage.y0, w = coverage.width, rows = coverage.rows
            coverage.values.withUnsafeBufferPointer { run in
                for y in y0..<(y0 + coverage.height) {
                    if let clip, y < clip.minY || y >= clip.maxY { continue }
                    let tested = rows[y - y0]
                    let lo = max(tested.lo, clip?.minX ?? tested.lo), hi = min(tested.hi + 1, clip?.maxX ?? (tested.hi + 1))
                    guard lo < hi else { continue }
                    let row = (y - y0) * w
                    image.composite(color, row: y, x: lo, coverage: UnsafeBufferPointer(rebasing: run[(row + lo - x0)..<(row + hi - x0)]))
                }
            }
        }
    }

    mutating func drawLine(_ f: RenderFeature, _ layer: StyleLayer) {
        // Polygon rings are drawn as closed lines: MapLibre joins them where they start.
        let lines: [[WorldPoint]] = switch f.kind {
        case .line: f.lines
        case .polygon: f.polygons.flatMap { $0 }
        case .point: []
        }
        guard !lines.isEmpty else { return }
        let held = propertyValues.entries(layer, Self.lineProperties, zoom: zoom)
        // Read in place, as drawFill's.
        precondition(held.count == Self.lineProperties.count, "line property entries missing")
        func property(_ p: LineProperty) -> ExpressionValue { held.withUnsafeBufferPointer { $0[p.rawValue].value(zoom: zoom, feature: f) } }
        func number(_ p: LineProperty) -> Double { property(p).numberValue ?? 0 }
        let pr = camera.pixelRatio
        let width = max(0, number(.width)) * pr
        let gap = max(0, number(.gapWidth)) * pr
        let opacity = number(.opacity).clamped(0, 1)
        // Premultiplied as ``StyleColor/premultiplied`` (the same products), without its array per feature.
        let c = property(.color).colorValue ?? StyleColor(red: 0, green: 0, blue: 0, alpha: 0)
        let rgba = (c.red * c.alpha * opacity, c.green * c.alpha * opacity, c.blue * c.alpha * opacity, c.alpha * opacity)
        guard width > 0 || gap > 0, rgba.3 > 0 else { return }
        var shading = LineShading(color: rgba, width: width, gap: gap,
                                  blur: max(0, number(.blur)) * pr, offset: number(.offset) * pr)
        let floorZoom = zoom.rounded(.down)
        if property(.pattern) != .null {
            // A pattern replaces the colour, repeated at its own size in CSS pixels of the floor
            // zoom (the suite's reference images: not stretched to the line's width).
            guard let p = pattern(layer, "line-pattern", f) else { return }
            shading.color = (0, 0, 0, opacity)
            shading.pattern = p
            shading.patternLength = Double(p.image.width) / p.pixelRatio * pr * pow(2, zoom - floorZoom)
            shading.patternPixel = pr / p.pixelRatio
        }
        let join: LineMesh.Join = switch property(.join).stringValue {
        case "round": .round
        case "bevel": .bevel
        default: .miter
        }
        let cap: LineMesh.Cap = switch property(.cap).stringValue {
        case "round": .round
        case "square": .square
        default: .butt
        }
        // Dashes (spec: line-dasharray, in line widths) scale with the line's width at the
        // integer zoom below the camera's, and grow with the zoom's fraction (MapLibre's
        // `line-floorwidth` and tile ratio). The edge's smoothing follows the shorter of the
        // cross-faded pair's patterns (``CrossFade``), though only the camera zoom's is drawn.
        // A layer without dashes (line-dasharray has no default) evaluates nothing here, nor
        // copies the property out of its list.
        let setDashes = propertyValues.setPaint(layer, Self.lineDasharray)
        if setDashes[0] != nil, let dasharray = setDashes[0],
           let dashes = dasharray.evaluate(zoom: floorZoom, feature: f.expressionFeature, tile: f.tile).numbersValue,
           dashes.count >= 2, dashes.allSatisfy({ $0 >= 0 }), dashes.reduce(0, +) > 0 {
            let floorWidth = max(layer.paint("line-width")?.evaluate(zoom: floorZoom, feature: f.expressionFeature, tile: f.tile).numberValue ?? 1, 1e-6)
            let fade = CrossFade(zoom: zoom)
            let from = dasharray.evaluate(zoom: fade.fromZoom, feature: f.expressionFeature, tile: f.tile).numbersValue ?? dashes
            let length = fade.shorterLength(from: from.reduce(0, +), to: dashes.reduce(0, +))
            shading.dashes = dashes
            shading.dashScale = floorWidth * pr * pow(2, zoom - floorZoom)
            shading.dashGamma = 1 / (2 * length * pr * floorWidth)
            shading.roundDashes = cap == .round
        }
        // A dashed or patterned GeoJSON line is cut into tiles as MapLibre cuts it (its dashes restart in each
        // tile, drawn only there); vector tile features come cut already.
        var cut: [(CanonicalTile, [[WorldPoint]])]? = nil
        if f.tile == nil, f.kind == .line, !shading.dashes.isEmpty || shading.pattern != nil {
            let z = layer.source.map { geoJSONTileZoom($0) } ?? Int(floorZoom.clamped(0, 24))
            cut = LineTiling.cut(lines, into: FeatureLoading.tiles(covering: screen.visibleWorld(margin: 2), zoom: z))
        }
        // The transform read once, as drawFill's.
        let screen = self.screen
        // Under a tilted camera the mesh is built on the ground and shaded through the tilt.
        let tilt = screen.perspective
        if let tilt {
            shading.perspective = tilt
            shading.imageCenter = Point(x: screen.halfWidth, y: screen.halfHeight)
        }
        let anchor = property(.translateAnchor)
        let shift = screen.translation(property(.translate)) { anchor }
        let miterLimit = number(.miterLimit), roundLimit = number(.roundLimit)
        // Thin polygon outlines (buildings') are shaded ring by ring without their mesh.
        let thinRings = f.kind == .polygon && join == .miter && shading.shadesThinRings
        // The lines of one part: the feature's, or those cut into `tile` (none: no tile).
        func drawPart(_ tile: CanonicalTile?, _ tileLines: [[WorldPoint]]) {
            // Joins sharper than 75° start 15 pixels of the tile's zoom back (none past 16× overzoom).
            let tileZoom = tile.map { Double($0.z) } ?? floorZoom
            let overscale = pow(2, max(0, floorZoom - tileZoom))
            let sharpOffset = overscale <= 16 ? 15 * pr * pow(2, zoom - floorZoom) : 0
            let clip = f.tile == nil && tile != nil ? clipRect(tile!) : canvas.clip
            var box = (minX: 0, minY: 0, maxX: canvas.width, maxY: canvas.height)
            if let clip { box = (max(0, clip.minX), max(0, clip.minY), min(canvas.width, clip.maxX), min(canvas.height, clip.maxY)) }
            let tileUnit = 512 * pow(2, zoom - tileZoom) * pr / 8192
            if tilt != nil { shading.groundClip = tile.flatMap { groundRect($0) } }
            // Seen from above, the mesh leaves out the parts of lines that cannot reach the
            // clip: a vertex lies at most the larger of the miter limit and 2 (bevels, caps)
            // times the outset and offset from its point (1/63 steps to spare), plus a pixel.
            let reach = (max(miterLimit, 2) + 0.05) * (shading.outset + abs(shading.offset)) + 1
            let bounds = tilt == nil && reach.isFinite
                ? (minX: Double(box.minX) - reach, minY: Double(box.minY) - reach, maxX: Double(box.maxX) + reach, maxY: Double(box.maxY) + reach) : nil
            // The pending lines are compared and read in place (copied, they would be a few
            // hundred bytes with their references retained and released per feature).
            if pendingLines == nil || !pendingLines!.continues(with: shading, clip: box, tileUnit: tileUnit) {
                drawPendingLines()
                startPendingLines(shading, clip: box, tileUnit: tileUnit)
            }
            for line in tileLines where line.count >= 2 {
                let points = tilt == nil ? screen.points(line, moved: shift) : screen.groundOffsets(line, moved: shift)
                if thinRings {
                    // After the lines gathered before it, which are shaded first; its segments
                    // too short to shade so join the gathered mesh.
                    if pendingLines != nil && !pendingLines!.mesh.vertices.isEmpty {
                        drawPendingLines()
                        startPendingLines(shading, clip: box, tileUnit: tileUnit)
                    }
                    var gathered = LineMesh()
                    swap(&gathered, &pendingLines!.mesh)
                    let shaded = canvas.withPixmap { shading.fillThinRing(points, miterLimit: miterLimit, into: &$0, clip: box, short: &gathered) }
                    swap(&gathered, &pendingLines!.mesh)
                    if shaded { continue }
                }
                pendingLines!.mesh.add(points, polygon: f.kind == .polygon, join: join, cap: cap,
                                       miterLimit: miterLimit, roundLimit: roundLimit, sharpCornerOffset: sharpOffset, within: bounds)
            }
            if !shading.joinable { drawPendingLines() }
        }
        if let cut {
            for (tile, tileLines) in cut { drawPart(tile, tileLines) }
        } else {
            drawPart(f.tile, lines)
        }
    }

    /// `line-dasharray`, which `drawLine` evaluates at other zooms than the camera's
    /// (``PropertyValues/setPaint(_:_:)``).
    static let lineDasharray = ["line-dasharray"]

    /// The properties `drawLine` reads for every feature, looked up once per layer
    /// (``PropertyValues/entries(_:_:zoom:)``): their indices in ``lineProperties``.
    enum LineProperty: Int {
        case width, gapWidth, opacity, color, blur, offset, pattern, join, cap, miterLimit, roundLimit, translate, translateAnchor
    }

    /// The names of ``LineProperty``'s properties, in its order, and whether each is paint.
    static let lineProperties: [(name: String, paint: Bool)] = [
        ("line-width", true), ("line-gap-width", true), ("line-opacity", true), ("line-color", true), ("line-blur", true),
        ("line-offset", true), ("line-pattern", true), ("line-join", false), ("line-cap", false),
        ("line-miter-limit", false), ("line-round-limit", false), ("line-translate", true), ("line-translate-anchor", true),
    ]

    /// Shades the lines gathered in ``pendingLines`` and empties it; its mesh, emptied, becomes
    /// the ``spareMesh``.
    mutating func drawPendingLines() {
        guard var pending = pendingLines.take() else { return }
        canvas.withPixmap { pending.shading.fill(pending.mesh, into: &$0, clip: pending.clip) }
        pending.mesh.removeAll()
        spareMesh = pending.mesh
    }

    /// Makes lines shaded as `shading` within `clip` (device pixels), `tileUnit` device pixels
    /// a tile unit, the ``pendingLines``, their mesh built in the ``spareMesh``'s storage.
    mutating func startPendingLines(_ shading: LineShading, clip: (minX: Int, minY: Int, maxX: Int, maxY: Int), tileUnit: Double) {
        var mesh = LineMesh()
        swap(&mesh, &spareMesh)
        mesh.tileUnit = tileUnit
        pendingLines = PendingLines(shading: shading, clip: clip, mesh: mesh)
    }

    /// Circles shaded per pixel as MapLibre's circle shader does: the disc and its stroke
    /// antialiased over 1/(pixel ratio · outer radius), then `circle-blur` fading the outer
    /// part of the radius. Of a vector tile's feature (`tile`), only the points inside the tile
    /// are drawn: its buffer's belong to the tile beside it, as MapLibre's `CircleBucket` leaves
    /// out points outside the tile's extent.
    mutating func drawCircle(_ f: RenderFeature, _ layer: StyleLayer, in tile: CanonicalTile?) {
        var centers: [WorldPoint] = switch f.kind {
        case .point: f.points
        case .line: f.lines.flatMap { $0 }
        case .polygon: f.polygons.flatMap { $0.flatMap { $0.dropLast() } }
        }
        if let tile {
            let n = Double(1 << tile.z)
            let minX = Double(tile.x) / n, maxX = Double(tile.x + 1) / n, minY = Double(tile.y) / n, maxY = Double(tile.y + 1) / n
            centers.removeAll { !($0.x >= minX && $0.x < maxX && $0.y >= minY && $0.y < maxY) }
        }
        guard !centers.isEmpty else { return }
        let pr = camera.pixelRatio
        let radius = number(layer, "circle-radius", f), strokeWidth = number(layer, "circle-stroke-width", f)
        let blur = number(layer, "circle-blur", f), opacity = number(layer, "circle-opacity", f)
        let fill = color(layer, "circle-color", f).premultiplied.map { $0 * opacity }
        let stroke = color(layer, "circle-stroke-color", f).premultiplied.map { $0 * number(layer, "circle-stroke-opacity", f) }
        let outer = radius + strokeWidth
        guard outer > 0 else { return }
        let aaBlur = 1 / (pr * outer)
        let blurAll = max(blur, aaBlur)
        let shift = translation(layer, "circle", f)
        // Under pitch, circles facing the viewer shrink with distance as the map does unless
        // `circle-pitch-scale` is `viewport` (MapLibre's circle shader: the extrusion times
        // camera-to-centre distance over depth).
        let scaleWithMap = value(layer, "circle-pitch-scale", f).stringValue != "viewport"
        let clip = canvas.clip, screen = self.screen
        canvas.withPixmap { image in
            let w = image.width, h = image.height
            var minX = 0, minY = 0, maxX = w, maxY = h
            if let clip { (minX, minY, maxX, maxY) = (max(0, clip.minX), max(0, clip.minY), min(w, clip.maxX), min(h, clip.maxY)) }
            image.withUnsafeMutableBytes { px in
                for c in centers {
                    let p = screen.point(c.x, c.y) + shift
                    let r = outer * pr * (scaleWithMap ? screen.depthScale(c.x, c.y) : 1)
                    let x0 = max(minX, Int((p.x - r).rounded(.down))), x1 = min(maxX - 1, Int((p.x + r).rounded(.up)))
                    let y0 = max(minY, Int((p.y - r).rounded(.down))), y1 = min(maxY - 1, Int((p.y + r).rounded(.up)))
                    guard x0 <= x1, y0 <= y1 else { continue }
                    for y in y0...y1 {
                        for x in x0...x1 {
                            let dx = Double(x) + 0.5 - p.x, dy = Double(y) + 0.5 - p.y
                            let t = (dx * dx + dy * dy).squareRoot() / r
                            guard t < 1 else { continue }
                            let alpha = Self.smoothstep(0, -blurAll, t - 1)
                            let mix = strokeWidth < 0.01 ? 0 : Self.smoothstep(-blurAll, 0, t - radius / outer)
                            let a = alpha
                            guard a > 0 else { continue }
                            let s = (0..<4).map { (fill[$0] * (1 - mix) + stroke[$0] * mix) * a }
                            let i = (y * w + x) * 4
                            let k = 1 - s[3]
                            for ch in 0..<4 {
                                let v = s[ch] * 255 + Double(px[i + ch]) * k
                                px[i + ch] = UInt8(min(255, max(0, v.rounded())))
                            }
                        }
                    }
                }
            }
        }
    }

    /// GLSL's `smoothstep(e0, e1, x)`.
    static func smoothstep(_ e0: Double, _ e1: Double, _ x: Double) -> Double {
        let t = ((x - e0) / (e1 - e0)).clamped(0, 1)
        return t * t * (3 - 2 * t)
    }
}

/// A ring's outline coverage (``StylePainter/outlineCoverage(_:depths:into:)``) in storage
/// kept from ring to ring: a building layer draws hundreds of outlines a tile, each of which
/// would allocate and fill its own. Holds the values of the ring last made, the rest zero.
struct OutlineCoverage {
    /// The ring's rectangle of values: its first pixel (image x and y), width and height.
    private(set) var x0 = 0, y0 = 0, width = 0, height = 0
    /// `width` values a row from (x0, y0); zero outside each row's ``rows`` range (and past
    /// the rectangle).
    var values: [Float] = []
    /// Per row of the rectangle (the first `height`), the first and last column (image x) that
    /// may be covered; `lo > hi` when none (and past the rectangle).
    var rows: [(lo: Int, hi: Int)] = []

    /// Sets the rectangle of the next ring's values (after ``clear()``).
    mutating func start(x0: Int, y0: Int, width: Int, height: Int) {
        (self.x0, self.y0, self.width, self.height) = (x0, y0, width, height)
        if values.count < width * height { values.append(contentsOf: repeatElement(0, count: width * height - values.count)) }
        if rows.count < height { rows.append(contentsOf: repeatElement((lo: Int.max, hi: -1), count: height - rows.count)) }
    }

    /// Zeroes the values the last ring set (its rows' ranges), uncovers its rows and forgets
    /// its rectangle.
    mutating func clear() {
        let w = width, left = x0, h = height
        values.withUnsafeMutableBufferPointer { v in rows.withUnsafeMutableBufferPointer { rows in
            for r in 0..<h where rows[r].lo <= rows[r].hi {
                let from = r * w + rows[r].lo - left
                UnsafeMutableBufferPointer(rebasing: v[from..<(from + rows[r].hi - rows[r].lo + 1)]).update(repeating: 0)
                rows[r] = (Int.max, -1)
            }
        } }
        width = 0; height = 0
    }
}
