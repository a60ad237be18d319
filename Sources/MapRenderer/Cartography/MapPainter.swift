internal import GeoCore
internal import MapData

import Platform

/// Draws map features in a `MapStyle` through a projection, with overlays and labels, onto a
/// canvas: land, land use and cover, parks, water, buildings, roads (casings, then fills, by
/// class; tunnels, ground, bridges), railways, boundaries, pedestrian features, overlays,
/// labels with collision avoidance, POI icons, one-way arrows, markers, and the attribution.
public struct MapPainter {
    public var style: MapStyle
    /// The zoom level the widths and `minZoom` filtering use.
    public var zoom: Double
    /// Whether "© OpenStreetMap contributors" goes in the corner: yes for a snapshot, no for
    /// raster tiles (the map that shows them credits the data once).
    public var drawsAttribution = true
    /// Whether `paint` first clears the canvas to `style.land`; false when the caller has drawn
    /// a base (a globe, a world map) the map goes over.
    public var clearsCanvas = true
    /// Which passes `paint` draws: the ground geometry (areas, lines, pedestrian features) and
    /// the symbols over it (overlays, labels, POI icons, markers, the attribution). A map view
    /// keeps the geometry in cached raster tiles and draws the symbols in screen space.
    public var passes: Passes = [.geometry, .symbols]

    /// The two passes of `paint`.
    public struct Passes: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Areas, roads, railways, boundaries, pedestrian features.
        public static let geometry = Passes(rawValue: 1)
        /// Overlays, labels, POI icons, one-way arrows, markers and the attribution.
        public static let symbols = Passes(rawValue: 2)
    }
    /// Whether the symbol pass places and draws labels; false when the caller draws labels it
    /// placed earlier (`placedLabels`), and the pass draws overlays, markers and the attribution.
    public var drawsLabels = true
    #if (canImport(CFreeType) && canImport(CHarfBuzz)) || canImport(CoreText)
    /// Shapes and draws labels; nil draws no text (and no attribution).
    public var text: TextRenderer?
    #endif

    public init(style: MapStyle = .day, zoom: Double) {
        self.style = style
        self.zoom = zoom
    }

    /// The OpenStreetMap licence's attribution, drawn in the bottom-right corner.
    public static let attribution = "© OpenStreetMap contributors"

    /// Paints the features of `index` that the projection shows, then `overlays`.
    /// - Complexity: O(visible features × their vertices + image area).
    public func paint(_ index: MapFeatureIndex, overlays: [MapOverlay] = [], through projection: some RenderProjection, on canvas: inout Canvas) {
        if clearsCanvas { canvas.clear(to: style.land) }
        let zoomLevel = Int(zoom.rounded(.down))
        // Geometry of the features near the image, labels of those a little farther too.
        var byLayer = LayerLists(), labelled = LayerLists()
        // Where each building's outline is stroked, when the features come from clipped tiles.
        var buildingOutlineBounds: [WorldRect?] = []
        let symbols = passes.contains(.symbols)
        index.forEachFeature(in: projection.visibleWorldBounds, marking: projection.geometryWorldBounds) { i, near in
            let layer = index.features[i].layer
            let label = symbols && LayerLists.carriesSymbols(layer, zoom: zoom)
            guard near || label, index.features[i].minZoom <= zoomLevel else { return }
            if near {
                byLayer[layer].append(index.features[i])
                if layer == .building, !index.outlineBounds.isEmpty { buildingOutlineBounds.append(index.outlineBounds[i]) }
            }
            if label { labelled[layer].append(index.features[i]) }
        }
        let scale = pow(2, zoom - 16)
        if passes.contains(.geometry) { paintGeometry(byLayer, buildingOutlineBounds: buildingOutlineBounds, scale: scale, projection, &canvas) }
        guard passes.contains(.symbols) else { return }
        for o in overlays { drawOverlay(o, projection, &canvas) }
        #if (canImport(CFreeType) && canImport(CHarfBuzz)) || canImport(CoreText)
        if let text {
            var labels = LabelPlacement(text: text, style: style, collisions: CollisionIndex())
            labels.reserveMarkers(overlays, projection)
            if drawsAttribution { labels.reserveAttribution(on: canvas) }
            if drawsLabels { Self.place(labelled, zoom: zoom, &labels, projection, &canvas) }
            if drawsAttribution { labels.attribution(on: &canvas) }
        } else {
            drawPOIIcons(byLayer[.poi], projection, &canvas)
            drawOnewayArrows(labelled[.transportation], projection, &canvas)
        }
        #else
        drawPOIIcons(byLayer[.poi], projection, &canvas)
        drawOnewayArrows(labelled[.transportation], projection, &canvas)
        #endif
        for o in overlays { if case .marker = o.kind { drawOverlay(o, projection, &canvas, markers: true) } }
    }

    #if (canImport(CFreeType) && canImport(CHarfBuzz)) || canImport(CoreText)
    /// Labels in priority order: places, POIs, water and park names, street names, then the
    /// one-way arrows wherever no label is.
    private static func place(_ labelled: LayerLists, zoom: Double, _ labels: inout LabelPlacement, _ projection: some RenderProjection, _ canvas: inout Canvas) {
        labels.places(labelled[.place], projection, &canvas)
        labels.pois(labelled[.poi], projection, &canvas)
        labels.areaNames(labelled[.water] + labelled[.park], projection, &canvas)
        labels.streetNames(labelled[.transportationName], projection, &canvas)
        if zoom >= onewayArrowMinZoom { labels.onewayArrows(labelled[.transportation], zoom: zoom, projection, &canvas) }
    }
    #endif

    /// The labels the symbol pass places through `projection` on a `width × height` image
    /// (clear of the markers' pins, and of the attribution when it is drawn), each on an image of
    /// its own, in drawing order; none without a text renderer. A moving map draws them again
    /// where their anchors go, and paints the rest of the pass with `drawsLabels` false.
    /// - Throws: `RenderError.invalidSize` for a size a `Pixmap` cannot have.
    /// - Complexity: O(features near the image × their vertices + the labels' area).
    public func placedLabels(_ index: MapFeatureIndex, overlays: [MapOverlay] = [], through projection: some RenderProjection, width: Int, height: Int) throws(RenderError) -> [PlacedLabel] {
        #if (canImport(CFreeType) && canImport(CHarfBuzz)) || canImport(CoreText)
        guard let text else { return [] }
        // Only the size of this canvas is read: every label goes on an image of its own.
        var canvas = Canvas(try Pixmap(width: width, height: height))
        let zoomLevel = Int(zoom.rounded(.down))
        var labelled = LayerLists()
        index.forEachFeature(in: projection.visibleWorldBounds, marking: projection.geometryWorldBounds) { i, _ in
            let f = index.features[i]
            if LayerLists.carriesSymbols(f.layer, zoom: zoom), f.minZoom <= zoomLevel { labelled[f.layer].append(f) }
        }
        var labels = LabelPlacement(text: text, style: style, collisions: CollisionIndex())
        labels.collected = []
        labels.reserveMarkers(overlays, projection)
        if drawsAttribution { labels.reserveAttribution(on: canvas) }
        Self.place(labelled, zoom: zoom, &labels, projection, &canvas)
        return labels.collected ?? []
        #else
        return []
        #endif
    }

    /// The ground geometry: areas, water, buildings, roads and railways, boundaries, pedestrian features.
    private func paintGeometry(_ byLayer: LayerLists, buildingOutlineBounds: [WorldRect?], scale: Double, _ projection: some RenderProjection, _ canvas: inout Canvas) {
        if !style.hidden.contains(.landuse) {
            // One fill per colour: land cover, then land use, each layer's colours in the order
            // they first appear.
            for layer in [MapLayer.landcover, .landuse] {
                var groups: [(color: Color, features: [MapFeature])] = []
                for f in byLayer[layer] {
                    guard let c = f.featureClass.flatMap(style.areaColor) else { continue }
                    if let i = groups.firstIndex(where: { $0.color == c }) { groups[i].features.append(f) } else { groups.append((c, [f])) }
                }
                for g in groups { fillPolygons(g.features, color: g.color, projection, &canvas) }
            }
        }
        if !style.hidden.contains(.parks) {
            fillPolygons(byLayer[.park], color: style.park, projection, &canvas)
        }
        if !style.hidden.contains(.water) {
            fillPolygons(byLayer[.water], color: style.water, projection, &canvas)
            for f in byLayer[.waterway] {
                let w: Double = switch f.featureClass { case "river": 6; case "canal": 5; default: 2.5 }
                strokeLines(f, StrokeStyle(width: max(0.7, w * scale)), color: style.water, projection, &canvas)
            }
        }
        if !style.hidden.contains(.buildings), zoom >= 14 {
            let buildings = byLayer[.building]
            fillPolygons(buildings, color: style.building, projection, &canvas)
            // Outlines from z15, where buildings are large enough for one to show.
            if zoom >= 15 {
                outlinePolygons(buildings, inside: buildingOutlineBounds, StrokeStyle(width: 0.6, join: .miter, cap: .butt), color: style.buildingOutline, projection, &canvas)
            }
        }
        if !style.hidden.contains(.roads) || !style.hidden.contains(.railways) {
            drawTransportation(byLayer[.transportation], scale: scale, projection, &canvas)
        }
        if !style.hidden.contains(.boundaries) {
            for f in byLayer[.boundary] {
                strokeLines(f, StrokeStyle(width: 1.5, dashes: [6, 3, 2, 3]), color: Color(hex: 0x8D618B), projection, &canvas)
            }
        }
        drawPedestrian(byLayer[.pedestrian], scale: scale, projection, &canvas)
    }

    // MARK: Areas and lines

    /// Fills the polygons of `features` in one colour with one rasterization: every exterior
    /// ring wound one way on screen and every hole the other, so that non-zero filling is the
    /// union of the polygons with their holes cut out (overlapping polygons stay filled).
    private func fillPolygons(_ features: [MapFeature], color: Color, _ projection: some RenderProjection, _ canvas: inout Canvas) {
        var rings: [Path.Contour] = []
        for f in features {
            guard case .polygons(let polygons) = f.geometry else { continue }
            for p in polygons {
                rings.append(Path.Contour(points: Self.wound(Self.thinned(projection.pixelRing(p.exterior)), clockwise: true), isClosed: true))
                for h in p.holes { rings.append(Path.Contour(points: Self.wound(Self.thinned(projection.pixelRing(h)), clockwise: false), isClosed: true)) }
            }
        }
        if !rings.isEmpty { canvas.fill(contours: rings, color: color, rule: .nonZero) }
    }

    private func fillPolygons(_ f: MapFeature, color: Color, _ projection: some RenderProjection, _ canvas: inout Canvas) {
        fillPolygons([f], color: color, projection, &canvas)
    }

    /// `points` without those closer than a quarter pixel to the last one kept (the last
    /// point is always kept): at low zooms an OSM way has many vertices per pixel, which
    /// change nothing drawn but cost the stroker and the rasterizer each.
    static func thinned(_ points: [Point]) -> [Point] {
        guard points.count > 2 else { return points }
        var out: [Point] = []
        out.reserveCapacity(points.count)
        var last = points[0]
        out.append(last)
        for p in points.dropFirst().dropLast() {
            let dx = p.x - last.x, dy = p.y - last.y
            if dx * dx + dy * dy >= 0.0625 { out.append(p); last = p }
        }
        out.append(points[points.count - 1])
        return out
    }

    /// `ring` turning clockwise on screen (y down: positive shoelace area), or the other way.
    private static func wound(_ ring: [Point], clockwise: Bool) -> [Point] {
        guard ring.count > 2 else { return ring }
        var twiceArea = 0.0
        var previous = ring[ring.count - 1]
        for p in ring {
            twiceArea += previous.x * p.y - p.x * previous.y
            previous = p
        }
        return (twiceArea >= 0) == clockwise ? ring : ring.reversed()
    }

    /// Strokes the rings of all `features`' polygons as one path; each feature's rings only
    /// inside its rectangle in `bounds` when there is one (empty `bounds`: whole rings).
    private func outlinePolygons(_ features: [MapFeature], inside bounds: [WorldRect?],
                                 _ stroke: StrokeStyle, color: Color, _ projection: some RenderProjection, _ canvas: inout Canvas) {
        var rings: [Path.Contour] = []
        for (k, f) in features.enumerated() {
            guard case .polygons(let polygons) = f.geometry else { continue }
            for ring in polygons.flatMap({ [$0.exterior] + $0.holes }) {
                guard let box = bounds.isEmpty ? nil : bounds[k] else {
                    rings.append(Path.Contour(points: Self.thinned(projection.pixelRing(ring)), isClosed: true))
                    continue
                }
                let (pieces, closed) = Self.parts(of: ring, inside: box)
                if closed {
                    rings.append(Path.Contour(points: Self.thinned(projection.pixelRing(ring)), isClosed: true))
                } else {
                    for piece in pieces { for line in projection.pixelLines(piece) { rings.append(Path.Contour(points: Self.thinned(line), isClosed: false)) } }
                }
            }
        }
        if !rings.isEmpty { canvas.stroke(contours: rings, style: stroke, color: color) }
    }

    /// The parts of the closed `ring` inside `box` (edges on its border count as inside):
    /// the ring itself (`closed`) when it lies wholly inside, else its pieces inside as open
    /// lines, each edge clipped by `LineClipping` and pieces that meet joined.
    static func parts(of ring: [MapPoint], inside box: WorldRect) -> (pieces: [[MapPoint]], closed: Bool) {
        if ring.allSatisfy(box.contains) { return ([ring], true) }
        var pieces: [[MapPoint]] = []
        var open = false
        for i in ring.indices {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            guard let (t0, t1) = LineClipping.visibleSpan(ax: a.x, ay: a.y, bx: b.x, by: b.y, minX: box.minX, minY: box.minY,
                                                         maxX: box.maxX, maxY: box.maxY) else { open = false; continue }
            let dx = b.x - a.x, dy = b.y - a.y
            let p0 = MapPoint(x: a.x + dx * t0, y: a.y + dy * t0), p1 = MapPoint(x: a.x + dx * t1, y: a.y + dy * t1)
            if open, t0 == 0 { pieces[pieces.count - 1].append(p1) } else { pieces.append([p0, p1]) }
            open = t1 == 1
        }
        // The piece through the ring's first point, split where the walk began, joined again.
        if pieces.count > 1, open, let first = pieces.first, first.first == ring[0] {
            pieces[pieces.count - 1] += first.dropFirst()
            pieces.removeFirst()
        }
        return (pieces, false)
    }

    /// A feature's lines (or polygon exteriors) on the image, thinned; nil when none shows.
    private func lineContours(_ f: MapFeature, _ projection: some RenderProjection) -> [Path.Contour]? {
        var out: [Path.Contour] = []
        switch f.geometry {
        case .lines(let lines):
            for l in lines { for piece in projection.pixelLines(l) { out.append(Path.Contour(points: Self.thinned(piece), isClosed: false)) } }
        case .polygons(let polygons):
            for p in polygons { out.append(Path.Contour(points: Self.thinned(projection.pixelRing(p.exterior)), isClosed: true)) }
        case .points: return nil
        }
        return out.isEmpty ? nil : out
    }

    private func strokeLines(_ f: MapFeature, _ stroke: StrokeStyle, color: Color, _ projection: some RenderProjection, _ canvas: inout Canvas) {
        if let lines = lineContours(f, projection) { canvas.stroke(contours: lines, style: stroke, color: color) }
    }

    // MARK: Roads and railways

    private func drawTransportation(_ features: [MapFeature], scale: Double, _ projection: some RenderProjection, _ canvas: inout Canvas) {
        var roads: [RoadStroke] = []
        var rails: [([Path.Contour], String, String?)] = []
        for f in features {
            guard let cls = f.featureClass, let path = lineContours(f, projection) else { continue }
            let brunnel: String? = if case .string(let b) = f["brunnel"] { b } else { nil }
            if cls == "rail" || cls == "transit" {
                if !style.hidden.contains(.railways) { rails.append((path, cls, brunnel)) }
            } else if let look = style.road(cls), !style.hidden.contains(.roads) {
                let layer: Int64 = if case .int(let l) = f["layer"] { l } else { 0 }
                roads.append(RoadStroke(path: path, look: look, brunnel: brunnel, layer: layer))
            }
        }
        // Tunnels, then the ground, then bridges; within each, casings under fills, low classes first.
        func level(_ r: RoadStroke) -> Int { r.brunnel == "tunnel" ? 0 : r.brunnel == "bridge" ? 2 : 1 }
        roads.sort { (level($0), $0.layer, $0.look.rank) < (level($1), $1.layer, $1.look.rank) }
        var start = 0
        while start < roads.count {
            var end = start
            while end < roads.count, level(roads[end]) == level(roads[start]), roads[end].layer == roads[start].layer { end += 1 }
            let group = roads[start..<end]
            let tunnel = level(roads[start]) == 0
            // Tunnels: a dashed casing and a fill faded towards white. Roads of one class are
            // stroked together (one path, one rasterization); the group is sorted by class.
            var casings: [(StrokeStyle, Color, [Path.Contour])] = [], fills: [(StrokeStyle, Color, [Path.Contour])] = []
            func add(_ path: [Path.Contour], _ stroke: StrokeStyle, _ color: Color, to list: inout [(StrokeStyle, Color, [Path.Contour])]) {
                if let last = list.last, last.0 == stroke, last.1 == color { list[list.count - 1].2 += path } else { list.append((stroke, color, path)) }
            }
            for r in group where r.look.casing > 0 {
                add(r.path, StrokeStyle(width: r.look.casingWidth(scale: scale), join: .round, cap: .butt, dashes: tunnel ? [5, 3] : []), r.look.casingColor, to: &casings)
            }
            for r in group {
                add(r.path, StrokeStyle(width: r.look.fillWidth(scale: scale), join: .round, cap: .round, dashes: r.look.dashes), tunnel ? r.look.fill.mixed(with: .white, 0.55) : r.look.fill, to: &fills)
            }
            for (stroke, color, path) in casings + fills { canvas.stroke(contours: path, style: stroke, color: color) }
            start = end
        }
        for (path, cls, brunnel) in rails {
            let grey = Color(hex: brunnel == "tunnel" ? 0xA0A0A0 : 0x707070)
            if cls == "rail" {
                canvas.stroke(contours: path, style: StrokeStyle(width: 3, join: .round, cap: .butt), color: grey)
                canvas.stroke(contours: path, style: StrokeStyle(width: 1.5, join: .round, cap: .butt, dashes: [6, 6]), color: .white)
            } else {
                canvas.stroke(contours: path, style: StrokeStyle(width: 1.5, join: .round, cap: .butt), color: grey)
            }
        }
    }

    /// The radius of a POI icon with its white rim, pixels.
    public static var poiIconRadius: Double { POIIcon.radius + 1 }

    /// OSM Carto's one-way arrow colour (`@oneway-marker-color`, roads.mss).
    static let onewayArrowColor = Color(hex: 0x6C70D5)
    /// Pixels between one-way arrows along a road (OSM Carto's `marker-spacing: 180`).
    static let onewayArrowSpacing = 180.0
    /// The zoom one-way arrows start at (OSM Carto's).
    static let onewayArrowMinZoom = 16.0
    /// A one-way arrow's outline around its centre, pointing along +x, pixels: a shaft of 8 × 1.2
    /// and a head 6 long and 6 wide.
    static let onewayArrowShape = [Point(x: -7, y: -0.6), Point(x: 1, y: -0.6), Point(x: 1, y: -3), Point(x: 7, y: 0), Point(x: 1, y: 3),
                                   Point(x: 1, y: 0.6), Point(x: -7, y: 0.6)]

    /// The one-way arrow on its own, pointing right (east), centred in a transparent 16 × 8
    /// image of `pixelRatio` device pixels per pixel: the default style's sprite icon `oneway`.
    public static func onewayArrowIcon(pixelRatio: Int) throws(RenderError) -> Pixmap {
        let s = Double(pixelRatio)
        var canvas = try Canvas(width: 16 * pixelRatio, height: 8 * pixelRatio, background: .transparent)
        canvas.fill(Path(polyline: onewayArrowShape.map { Point(x: (8 + $0.x) * s, y: (4 + $0.y) * s) }, closed: true), color: onewayArrowColor)
        return canvas.pixmap
    }

    /// Arrows along a one-way road pointing the way traffic goes (against the way's direction
    /// for `oneway` −1), as OSM Carto draws them from zoom 16: every 180 px starting 90 px in,
    /// or one in the middle of a line shorter than that but longer than 40 px; each a 14 px
    /// arrow, a shaft 1.2 px wide and a head 6 px wide, given as its outline on the image and
    /// the point on the road it is centred on. Distances are measured along the whole line at
    /// `zoom` (256 × 2^zoom pixels per world unit), not along its part on the image, so an
    /// arrow stays on its spot of the road however the view is cut: across tiles, and in a
    /// moving view. They are symbols: `LabelPlacement` draws each only where no label is.
    static func onewayArrows(_ f: MapFeature, reversed: Bool, zoom: Double, _ projection: some RenderProjection) -> [(at: Point, outline: [Point])] {
        guard case .lines(let lines) = f.geometry else { return [] }
        var out: [(at: Point, outline: [Point])] = []
        let shape = onewayArrowShape
        let scale = 256 * pow(2, zoom)
        for line in lines where line.count > 1 {
            var lengths = [0.0]
            lengths.reserveCapacity(line.count)
            for (p, q) in zip(line, line.dropFirst()) { lengths.append(lengths[lengths.count - 1] + ((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y)).squareRoot() * scale) }
            let total = lengths[lengths.count - 1]
            guard total > 40 else { continue }
            let positions = total < Self.onewayArrowSpacing ? [total / 2] : Array(stride(from: Self.onewayArrowSpacing / 2, to: total - 10, by: Self.onewayArrowSpacing))
            var i = 0
            for s in positions {
                while i < line.count - 2, lengths[i + 1] <= s { i += 1 }
                let t = lengths[i + 1] > lengths[i] ? (s - lengths[i]) / (lengths[i + 1] - lengths[i]) : 0
                let w = MapPoint(x: line[i].x + (line[i + 1].x - line[i].x) * t, y: line[i].y + (line[i + 1].y - line[i].y) * t)
                guard let at = projection.pixel(for: w), let from = projection.pixel(for: line[i]), let to = projection.pixel(for: line[i + 1]) else { continue }
                let a = atan2(to.y - from.y, to.x - from.x) + (reversed ? .pi : 0)
                let (c, sn) = (cos(a), sin(a))
                out.append((at, shape.map { Point(x: at.x + c * $0.x - sn * $0.y, y: at.y + sn * $0.x + c * $0.y) }))
            }
        }
        return out
    }

    // MARK: Pedestrian features

    private func drawPedestrian(_ features: [MapFeature], scale: Double, _ projection: some RenderProjection, _ canvas: inout Canvas) {
        let salmon = Color(hex: 0xFA8072)
        for f in features {
            guard let cls = f.featureClass, style.showsPedestrian(cls) else { continue }
            switch f.geometry {
            case .polygons: fillPolygons(f, color: Color(hex: 0xDDDDE8), projection, &canvas)
            case .lines:
                switch cls {
                case "steps", "escalator":
                    strokeLines(f, StrokeStyle(width: max(2.5, 5 * scale), cap: .butt, dashes: [1.5, 1]), color: salmon, projection, &canvas)
                case "crossing":
                    strokeLines(f, StrokeStyle(width: max(2, 4 * scale), cap: .butt, dashes: [1.5, 1.5]), color: Color(hex: 0x666666), projection, &canvas)
                default:
                    strokeLines(f, StrokeStyle(width: 1.4, cap: .round, dashes: [4, 2]), color: salmon, projection, &canvas)
                }
            case .points(let ps):
                for p in ps {
                    guard let c = projection.pixel(for: p) else { continue }
                    canvas.fill(Path(circleAt: c, radius: 4), color: .white)
                    canvas.fill(Path(circleAt: c, radius: 3), color: cls == "elevator" ? Color(hex: 0x0092DA) : Color(hex: 0x666666))
                }
            }
        }
    }

    // MARK: POI icons

    /// POI icons alone (no text renderer): every shown POI, no collision test.
    private func drawPOIIcons(_ features: [MapFeature], _ projection: some RenderProjection, _ canvas: inout Canvas) {
        for f in features {
            guard let cls = f.featureClass, style.showsPOI(cls), case .points(let ps) = f.geometry, let p = ps.first, let c = projection.pixel(for: p) else { continue }
            POIIcon.draw(cls, at: c, color: style.poiColor(cls), on: &canvas)
        }
    }

    /// One-way arrows alone (no text renderer, so no labels to keep clear of): every arrow.
    private func drawOnewayArrows(_ features: [MapFeature], _ projection: some RenderProjection, _ canvas: inout Canvas) {
        guard !style.hidden.contains(.roads) else { return }
        var path = Path()
        for f in features {
            guard let cls = f.featureClass, style.road(cls) != nil, case .int(let oneway) = f["oneway"], oneway == 1 || oneway == -1 else { continue }
            for arrow in Self.onewayArrows(f, reversed: oneway == -1, zoom: zoom, projection) { path.append(Path(polyline: arrow.outline, closed: true)) }
        }
        if !path.isEmpty { canvas.fill(path, color: Self.onewayArrowColor) }
    }

    // MARK: Overlays

    private func drawOverlay(_ o: MapOverlay, _ projection: some RenderProjection, _ canvas: inout Canvas, markers: Bool = false) {
        switch o.kind {
        case .polyline(let coords, let width, let color) where !markers:
            var path = Path()
            for piece in projection.pixelLines(coords.map(MapPoint.init)) { path.append(Path(polyline: piece)) }
            canvas.stroke(path, style: StrokeStyle(width: width + 3), color: .white)
            canvas.stroke(path, style: StrokeStyle(width: width), color: color)
        case .circle(let center, let radius, let fill, let stroke) where !markers:
            // Ground distance → world units: the Mercator scale at the centre's latitude.
            let r = radius.meters / (2 * Double.pi * WebMercator.radius) * WebMercator.scaleFactor(atLatitude: center.latitude)
            let c = MapPoint(center)
            let ring = (0..<72).map { i in
                let a = Double(i) * .pi / 36
                return MapPoint(x: c.x + r * cos(a), y: c.y + r * sin(a))
            }
            let path = Path(polyline: projection.pixelRing(ring), closed: true)
            canvas.fill(path, color: fill)
            canvas.stroke(path, style: StrokeStyle(width: 2), color: stroke)
        case .marker(let coordinate, let color) where markers:
            guard let tip = projection.pixel(for: MapPoint(coordinate)) else { return }
            // A pin: a head of radius 9 centred 22 px above the tip, joined to the tip by the
            // two tangents (they touch the head at ±θ from straight down, cos θ = r / d).
            let r = MapOverlay.pinHeadRadius, d = MapOverlay.pinHeadHeight
            let head = Point(x: tip.x, y: tip.y - d)
            let theta = acos(r / d)
            var pin = Path()
            pin.move(to: tip)
            for i in 0...32 {
                let t = (Double.pi / 2 - theta) - (2 * Double.pi - 2 * theta) * Double(i) / 32
                pin.line(to: Point(x: head.x + r * cos(t), y: head.y + r * sin(t)))
            }
            pin.close()
            canvas.stroke(pin, style: StrokeStyle(width: 2.5), color: .white)
            canvas.fill(pin, color: color)
            canvas.fill(Path(circleAt: head, radius: 3.5), color: .white)
        default: break
        }
    }
}

/// Features sorted by layer: one list per `MapLayer`, found by a switch rather than by hashing
/// the layer's name.
private struct LayerLists {
    private var lists = [[MapFeature]](repeating: [], count: MapLayer.allCases.count)

    /// Whether the layer's features can carry a label, an icon or (roads, from the arrows'
    /// zoom) one-way arrows at `zoom`.
    static func carriesSymbols(_ layer: MapLayer, zoom: Double) -> Bool {
        switch layer {
        case .place, .poi, .water, .park, .transportationName: true
        case .transportation: zoom >= MapPainter.onewayArrowMinZoom
        default: false
        }
    }

    subscript(layer: MapLayer) -> [MapFeature] {
        get { lists[Self.slot(layer)] }
        _modify { yield &lists[Self.slot(layer)] }
    }

    private static func slot(_ layer: MapLayer) -> Int {
        switch layer {
        case .water: 0
        case .waterway: 1
        case .landcover: 2
        case .landuse: 3
        case .park: 4
        case .building: 5
        case .transportation: 6
        case .transportationName: 7
        case .boundary: 8
        case .place: 9
        case .poi: 10
        case .pedestrian: 11
        }
    }
}

/// One road ready to stroke.
private struct RoadStroke {
    let path: [Path.Contour]
    let look: MapStyle.RoadLook
    let brunnel: String?
    let layer: Int64
}
