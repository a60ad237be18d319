/// Axis-aligned pixel rectangles already taken by labels and icons: a new label is placed only
/// where it overlaps none of them (greedy placement in priority order, as Mapnik and MapLibre do).
struct CollisionIndex {
    /// The rectangles are the boxes a placed label keeps clear.
    typealias Box = PlacedLabel.Box

    private var boxes: [Box] = []
    /// Grid buckets of 64 px, so a check looks at nearby boxes only.
    private var grid: [Int: [Int]] = [:]
    private static let cell = 64.0

    func isFree(_ candidates: [Box]) -> Bool {
        for b in candidates {
            for key in Self.keys(b) {
                if let list = grid[key], list.contains(where: { boxes[$0].intersects(b) }) { return false }
            }
        }
        return true
    }

    mutating func insert(_ candidates: [Box]) {
        for b in candidates {
            boxes.append(b)
            for key in Self.keys(b) { grid[key, default: []].append(boxes.count - 1) }
        }
    }

    /// Inserts and returns true when all are free; else leaves the index unchanged.
    mutating func place(_ candidates: [Box]) -> Bool {
        guard isFree(candidates) else { return false }
        insert(candidates)
        return true
    }

    private static func keys(_ b: Box) -> [Int] {
        let x0 = Int((b.minX / cell).rounded(.down)), x1 = Int((b.maxX / cell).rounded(.down))
        let y0 = Int((b.minY / cell).rounded(.down)), y1 = Int((b.maxY / cell).rounded(.down))
        guard x1 - x0 < 64, y1 - y0 < 64 else { return [Int.min] }
        var out: [Int] = []
        for y in y0...y1 { for x in x0...x1 { out.append(y &* 1_000_003 &+ x) } }
        return out
    }
}

#if (canImport(CFreeType) && canImport(CHarfBuzz)) || canImport(CoreText)
internal import MapData

/// Places labels in priority order (places, POIs, water and park names, street names), each
/// only where it collides with nothing placed before, and draws them.
struct LabelPlacement {
    let text: TextRenderer
    let style: MapStyle
    var collisions: CollisionIndex
    /// Street names already placed, with where, so one street is not named every few pixels.
    private var placedNames: [String: [Point]] = [:]
    /// When set, each label is drawn on an image of its own and collected here, not on the canvas.
    var collected: [PlacedLabel]?

    init(text: TextRenderer, style: MapStyle, collisions: CollisionIndex) {
        self.text = text
        self.style = style
        self.collisions = collisions
    }

    /// The feature's name in the preferred language, else its `name`.
    func name(_ f: MapFeature) -> String? {
        if let lang = style.language, case .string(let s) = f["name:\(lang)"], !s.isEmpty { return s }
        if case .string(let s) = f["name"], !s.isEmpty { return s }
        return nil
    }

    /// Keeps labels off the markers' pins.
    mutating func reserveMarkers(_ overlays: [MapOverlay], _ projection: some RenderProjection) {
        for o in overlays {
            if case .marker(let c, _) = o.kind, let tip = projection.pixel(for: MapPoint(c)) {
                collisions.insert([CollisionIndex.Box(minX: tip.x - 11, minY: tip.y - 33, maxX: tip.x + 11, maxY: tip.y)])
            }
        }
    }

    private static let attributionStyle = TextStyle(size: 11, color: Color(hex: 0x333333), halo: nil)

    private func attributionBox(on canvas: Canvas) -> (ShapedText, CollisionIndex.Box) {
        let shaped = text.shape(MapPainter.attribution, size: Self.attributionStyle.size)
        let w = shaped.width + 8, h = 16.0
        return (shaped, CollisionIndex.Box(minX: Double(canvas.width) - w, minY: Double(canvas.height) - h, maxX: Double(canvas.width), maxY: Double(canvas.height)))
    }

    mutating func reserveAttribution(on canvas: Canvas) {
        collisions.insert([attributionBox(on: canvas).1])
    }

    /// "© OpenStreetMap contributors" on a translucent white box in the bottom-right corner.
    func attribution(on canvas: inout Canvas) {
        let (shaped, box) = attributionBox(on: canvas)
        canvas.fill(Path(rectX: box.minX, y: box.minY, width: box.maxX - box.minX, height: box.maxY - box.minY), color: Color(red: 255, green: 255, blue: 255, alpha: 190))
        text.draw(shaped, at: Point(x: box.minX + 4, y: box.maxY - 4), style: Self.attributionStyle, on: &canvas)
    }

    /// Draws one label through `draw`, given the shift to add to its pixel positions: onto the
    /// canvas, or, when labels are collected, onto an image of `boxes` grown by `margin` pixels
    /// (whole pixels, so glyphs keep their subpixel positions).
    private mutating func drawLabel(anchor: Point, boxes: [CollisionIndex.Box], margin: Double, on canvas: inout Canvas, _ draw: (Point, inout Canvas) -> Void) {
        guard collected != nil else { return draw(Point(x: 0, y: 0), &canvas) }
        let minX = (boxes.map(\.minX).min() ?? anchor.x) - margin, maxX = (boxes.map(\.maxX).max() ?? anchor.x) + margin
        let minY = (boxes.map(\.minY).min() ?? anchor.y) - margin, maxY = (boxes.map(\.maxY).max() ?? anchor.y) + margin
        let origin = Point(x: minX.rounded(.down), y: minY.rounded(.down))
        guard let pixmap = try? Pixmap(width: Int((maxX - origin.x).rounded(.up)), height: Int((maxY - origin.y).rounded(.up))) else { return }
        var sprite = Canvas(pixmap)
        draw(Point(x: -origin.x, y: -origin.y), &sprite)
        collected?.append(PlacedLabel(image: sprite.pixmap, origin: origin, anchor: anchor,
                                      boxes: boxes))
    }

    /// A point label centred on `p`, or with its left edge at `p.x` when `leftAligned`.
    @discardableResult
    private mutating func pointLabel(_ s: String, at p: Point, style ts: TextStyle, leftAligned: Bool = false, on canvas: inout Canvas) -> Bool {
        let shaped = text.shape(s, size: ts.size)
        let x = leftAligned ? p.x : p.x - shaped.width / 2
        let box = CollisionIndex.Box(minX: x - 2, minY: p.y - ts.size * 0.8, maxX: x + shaped.width + 2, maxY: p.y + ts.size * 0.3)
        guard box.minX >= 0, box.minY >= 0, box.maxX <= Double(canvas.width), box.maxY <= Double(canvas.height), collisions.place([box]) else { return false }
        let text = self.text
        drawLabel(anchor: p, boxes: [box], margin: ts.size * 0.3 + ts.haloWidth + 1, on: &canvas) { shift, c in
            text.draw(shaped, at: Point(x: x + shift.x, y: p.y + shift.y), style: ts, on: &c)
        }
        return true
    }

    mutating func places(_ features: [MapFeature], _ projection: some RenderProjection, _ canvas: inout Canvas) {
        guard !style.hidden.contains(.places) else { return }
        let rank = ["country": 0, "state": 1, "city": 2, "town": 3, "village": 4, "suburb": 5, "hamlet": 6, "quarter": 7, "neighbourhood": 8, "island": 9, "locality": 10]
        // Each feature ranked once, not at every comparison.
        for (_, f) in features.map({ (rank[$0.featureClass ?? "", default: 11], $0) }).sorted(by: { $0.0 < $1.0 }) {
            guard let s = name(f), case .points(let ps) = f.geometry, let p = ps.first, let c = projection.pixel(for: p) else { continue }
            let r = rank[f.featureClass ?? "", default: 11]
            let size = r <= 2 ? 18.0 : r == 3 ? 15 : r <= 5 ? 13 : 11.5
            pointLabel(s, at: c, style: TextStyle(size: size, color: Color(hex: 0x222222), haloWidth: 2), on: &canvas)
        }
    }

    mutating func pois(_ features: [MapFeature], _ projection: some RenderProjection, _ canvas: inout Canvas) {
        for f in features {
            guard let cls = f.featureClass, style.showsPOI(cls), case .points(let ps) = f.geometry, let p = ps.first, let c = projection.pixel(for: p) else { continue }
            let r = POIIcon.radius + 1
            // Whole on the image, like a label: a tile's icon is never cut by the tile's edge.
            guard c.x - r >= 0, c.y - r >= 0, c.x + r <= Double(canvas.width), c.y + r <= Double(canvas.height),
                  collisions.place([CollisionIndex.Box(minX: c.x - r, minY: c.y - r, maxX: c.x + r, maxY: c.y + r)]) else { continue }
            let color = style.poiColor(cls)
            drawLabel(anchor: c, boxes: [CollisionIndex.Box(minX: c.x - r, minY: c.y - r, maxX: c.x + r, maxY: c.y + r)], margin: 1, on: &canvas) { shift, on in
                POIIcon.draw(cls, at: c + shift, color: color, on: &on)
            }
            if let s = name(f) {
                pointLabel(s, at: Point(x: c.x + r + 2, y: c.y + 4), style: TextStyle(size: 11, color: color, haloWidth: 1.5), leftAligned: true, on: &canvas)
            }
        }
    }

    /// Names of water and parks large enough on screen, inside their outline (`interiorPoint`).
    mutating func areaNames(_ features: [MapFeature], _ projection: some RenderProjection, _ canvas: inout Canvas) {
        for f in features {
            guard let s = name(f), case .polygons(let polys) = f.geometry, let outer = polys.first?.exterior else { continue }
            if f.layer == .water && style.hidden.contains(.water) || f.layer == .park && style.hidden.contains(.parks) { continue }
            let ring = projection.pixelRing(outer)
            guard let minX = ring.map(\.x).min(), let maxX = ring.map(\.x).max(), let minY = ring.map(\.y).min(), let maxY = ring.map(\.y).max(),
                  (maxX - minX) * (maxY - minY) > 6000, let at = Self.interiorPoint(of: ring) else { continue }
            let color = f.layer == .water ? Color(hex: 0x1A6D9A) : Color(hex: 0x2E7D32)
            pointLabel(s, at: at, style: TextStyle(size: 12, color: color, haloWidth: 1.5), on: &canvas)
        }
    }

    /// A point inside `ring` for its label: the centre of its box when that is inside, else the
    /// middle of the widest stretch inside along the box's middle row (the scan-line interior
    /// point of GEOS's `InteriorPointArea`). A river's or a crescent's box centre is often on
    /// land. Nil for a ring with no inside on that row.
    static func interiorPoint(of ring: [Point]) -> Point? {
        guard let minX = ring.map(\.x).min(), let maxX = ring.map(\.x).max(), let minY = ring.map(\.y).min(), let maxY = ring.map(\.y).max() else { return nil }
        let centre = Point(x: (minX + maxX) / 2, y: (minY + maxY) / 2)
        // Where the ring's edges cross the row y = centre.y, left to right (even-odd: pairs).
        var crossings: [Double] = []
        for (a, b) in zip(ring, ring.dropFirst() + ring.prefix(1)) where (a.y <= centre.y) != (b.y <= centre.y) {
            crossings.append(a.x + (centre.y - a.y) / (b.y - a.y) * (b.x - a.x))
        }
        crossings.sort()
        var widest: (from: Double, to: Double)?
        for i in stride(from: 0, to: crossings.count - 1, by: 2) {
            let from = crossings[i], to = crossings[i + 1]
            if from <= centre.x, centre.x <= to { return centre }
            if to - from > (widest.map { $0.to - $0.from } ?? 0) { widest = (from, to) }
        }
        return widest.map { Point(x: ($0.from + $0.to) / 2, y: centre.y) }
    }

    /// Street names along their lines, once per street (as Mapnik names a line once with its
    /// default `spacing` 0) and per name within 200 px; each street's OSM ways are one feature,
    /// joined end to end (`MapFeatureIndex.joiningStreetNames`). Along each of its lines the
    /// name is tried at its middle, then at spots half a name's length + 12 px apart either way (closer, down to
    /// 12 px, when the line is not much longer than the name, and at its ends; nearest the
    /// middle first, at most 8 tried on the image that are not near the name placed already),
    /// upright, where the line under the name is straight enough and no glyph's box collides;
    /// Mapnik likewise slides a line label along its line (`label-position-tolerance`). The spots
    /// are fixed along the whole line, not along its part on the image, so a moving view places
    /// its names on the same spots again.
    mutating func streetNames(_ features: [MapFeature], _ projection: some RenderProjection, _ canvas: inout Canvas) {
        guard !style.hidden.contains(.streetNames), !style.hidden.contains(.roads) else { return }
        let rank = ["motorway": 0, "trunk": 1, "primary": 2, "secondary": 3, "tertiary": 4, "minor": 5, "pedestrian": 6, "service": 7]
        let ts = TextStyle(size: 11, color: Color(hex: 0x333333), haloWidth: 1.5)
        let width = Double(canvas.width), height = Double(canvas.height)
        for (_, f) in features.map({ (rank[$0.featureClass ?? "", default: 9], $0) }).sorted(by: { $0.0 < $1.0 }) {
            guard let s = name(f), case .lines(let lines) = f.geometry else { continue }
            let shaped = text.shape(s, size: ts.size)
            let pieces = lines.flatMap { projection.pixelLines($0) }.map(PolylineMeasure.init).filter { $0.total > shaped.width + 8 }
            placing: for measure in pieces {
                // The name starts from `first` to `last` pixels along (4 px from either end), at
                // spots closer together on a line with little room to spare, the outermost
                // moved in to the ends of that range.
                let first = 4.0, last = measure.total - 4 - shaped.width
                let middle = (first + last) / 2, step = min(shaped.width / 2 + 12, max(12, (last - first) / 4))
                let reach = Int(((last - first) / 2 / step).rounded(.up))
                // Spots only along the segments whose boxes meet the image, at most 64 of them
                // (a tilted view's line towards the horizon can be millions of pixels long).
                var lo = Double.infinity, hi = -Double.infinity
                for i in measure.points.indices.dropFirst() {
                    let p = measure.points[i - 1], q = measure.points[i]
                    guard max(p.x, q.x) >= 0, min(p.x, q.x) <= width, max(p.y, q.y) >= 0, min(p.y, q.y) <= height else { continue }
                    lo = min(lo, measure.lengths[i - 1])
                    hi = max(hi, measure.lengths[i])
                }
                guard lo < hi else { continue }
                let kLow = max(-reach, Int(((lo - shaped.width - middle) / step).rounded(.down)))
                let kHigh = min(reach, Int(((hi - middle) / step).rounded(.up)))
                guard kLow <= kHigh else { continue }
                let nearest = min(max(0, kLow), kHigh)
                let ks = (max(kLow, nearest - 32)...min(kHigh, nearest + 32)).sorted { abs($0) < abs($1) }
                var tried = 0
                for k in ks where tried < 8 {
                    let start = min(max(middle + Double(k) * step, first), last)
                    // On the image: both ends of the name; not near where the name is already.
                    guard let (a, _) = measure.point(at: start), let (b, _) = measure.point(at: start + shaped.width),
                          a.x >= 0, a.y >= 0, a.x <= width, a.y <= height, b.x >= 0, b.y >= 0, b.x <= width, b.y <= height,
                          let (mid, _) = measure.point(at: start + shaped.width / 2),
                          !(placedNames[s] ?? []).contains(where: { ($0 - mid).length < 200 }) else { continue }
                    tried += 1
                    if placeStreetName(s, shaped, on: measure, from: start, middle: mid, style: ts, &canvas) { break placing }
                }
            }
        }
    }

    /// Places and draws one street name on `measure` from `start` pixels along it, read left to
    /// right (on the line reversed when it runs leftwards there), its middle at `mid`; false when
    /// the line bends too much under it or a glyph's box collides.
    private mutating func placeStreetName(_ s: String, _ shaped: ShapedText, on measure: PolylineMeasure, from start: Double, middle mid: Point, style ts: TextStyle, _ canvas: inout Canvas) -> Bool {
        guard let (_, angle) = measure.point(at: start + shaped.width / 2) else { return false }
        let upright = cos(angle) < 0 ? PolylineMeasure(measure.points.reversed()) : measure
        let offset = cos(angle) < 0 ? measure.total - start - shaped.width : start
        guard let placed = TextRenderer.placements(of: shaped, along: upright, offset: offset) else { return false }
        // Too curved under the text: glyph to glyph (spaces skipped) the line may turn at
        // most 25°, and 60° over the whole name.
        let angles = zip(shaped.glyphs, placed).compactMap { g, t in g.advance > 0 ? atan2(t.b, t.a) : nil }
        guard let first = angles.first, let last = angles.last, cos(last - first) > 0.5,
              zip(angles, angles.dropFirst()).allSatisfy({ cos($1 - $0) > 0.906 }) else { return false }
        // A box around each glyph's middle on the line.
        let h = ts.size * 0.6, onLine = -ts.size * TextRenderer.baselineBelowLine
        let boxes = zip(shaped.glyphs, placed).map { g, t in
            let p = t.apply(Point(x: g.advance / 2, y: onLine))
            return CollisionIndex.Box(minX: p.x - h, minY: p.y - h, maxX: p.x + h, maxY: p.y + h)
        }
        guard boxes.allSatisfy({ $0.minX >= 0 && $0.minY >= 0 && $0.maxX <= Double(canvas.width) && $0.maxY <= Double(canvas.height) }),
              collisions.place(boxes) else { return false }
        placedNames[s, default: []].append(mid)
        let text = self.text
        drawLabel(anchor: mid, boxes: boxes, margin: ts.haloWidth + 2, on: &canvas) { shift, c in
            let shifted = placed.map { t in var t = t; t.tx += shift.x; t.ty += shift.y; return t }
            text.draw(shaped, placed: shifted, style: ts, on: &c)
        }
        return true
    }

    /// One-way arrows along the roads of `features`, placed after every label: each only where
    /// its box (the arrow's bounds and a pixel) is whole on the image and overlaps no label or
    /// icon placed before, as MapLibre places a line's arrow symbols after the labels above them
    /// and hides those a label's box covers. So no arrow shows through a street name's word gap.
    mutating func onewayArrows(_ features: [MapFeature], zoom: Double, _ projection: some RenderProjection, _ canvas: inout Canvas) {
        guard !style.hidden.contains(.roads) else { return }
        // Onto the canvas, all arrows are filled as one path.
        var batch = Path()
        for f in features {
            guard let cls = f.featureClass, style.road(cls) != nil, case .int(let oneway) = f["oneway"], oneway == 1 || oneway == -1 else { continue }
            for arrow in MapPainter.onewayArrows(f, reversed: oneway == -1, zoom: zoom, projection) {
                let xs = arrow.outline.map(\.x), ys = arrow.outline.map(\.y)
                let box = CollisionIndex.Box(minX: xs.min()! - 1, minY: ys.min()! - 1, maxX: xs.max()! + 1, maxY: ys.max()! + 1)
                guard box.minX >= 0, box.minY >= 0, box.maxX <= Double(canvas.width), box.maxY <= Double(canvas.height), collisions.place([box]) else { continue }
                guard collected != nil else {
                    batch.append(Path(polyline: arrow.outline, closed: true))
                    continue
                }
                drawLabel(anchor: arrow.at, boxes: [box], margin: 1, on: &canvas) { shift, c in
                    c.fill(Path(polyline: arrow.outline.map { $0 + shift }, closed: true), color: MapPainter.onewayArrowColor)
                }
            }
        }
        if !batch.isEmpty { canvas.fill(batch, color: MapPainter.onewayArrowColor) }
    }
}

import Platform
#endif
