public import GeoCore
public import MapData

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Draws map features in a `MapStyle` through a projection, with overlays and labels, onto a
/// canvas: land, land use and cover, parks, water, buildings, roads (casings, then fills, by
/// class; tunnels, ground, bridges), railways, boundaries, pedestrian features, overlays,
/// labels with collision avoidance, POI icons, markers, and the attribution.
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
        /// Overlays, labels, POI icons, markers and the attribution.
        public static let symbols = Passes(rawValue: 2)
    }
    #if canImport(CFreeType) && canImport(CHarfBuzz)
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
        let visible = index.features(in: projection.visibleWorldBounds).filter { $0.minZoom <= zoomLevel }
        var byLayer: [MapLayer: [MapFeature]] = [:]
        for f in visible { byLayer[f.layer, default: []].append(f) }
        let scale = pow(2, zoom - 16)
        if passes.contains(.geometry) { paintGeometry(byLayer, scale: scale, projection, &canvas) }
        guard passes.contains(.symbols) else { return }
        for o in overlays { drawOverlay(o, projection, &canvas) }
        #if canImport(CFreeType) && canImport(CHarfBuzz)
        if let text {
            var labels = LabelPlacement(text: text, style: style, collisions: CollisionIndex())
            labels.reserveMarkers(overlays, projection)
            if drawsAttribution { labels.reserveAttribution(on: canvas) }
            labels.places(byLayer[.place, default: []], projection, &canvas)
            labels.pois(byLayer[.poi, default: []], projection, &canvas)
            labels.areaNames(byLayer[.water, default: []] + byLayer[.park, default: []], projection, &canvas)
            labels.streetNames(byLayer[.transportationName, default: []], projection, &canvas)
            if drawsAttribution { labels.attribution(on: &canvas) }
        } else {
            drawPOIIcons(byLayer[.poi, default: []], projection, &canvas)
        }
        #else
        drawPOIIcons(byLayer[.poi, default: []], projection, &canvas)
        #endif
        for o in overlays { if case .marker = o.kind { drawOverlay(o, projection, &canvas, markers: true) } }
    }

    /// The ground geometry: areas, water, buildings, roads and railways, boundaries, pedestrian features.
    private func paintGeometry(_ byLayer: [MapLayer: [MapFeature]], scale: Double, _ projection: some RenderProjection, _ canvas: inout Canvas) {
        if !style.hidden.contains(.landuse) {
            for f in byLayer[.landcover, default: []] + byLayer[.landuse, default: []] {
                if let c = f.featureClass.flatMap(style.areaColor) { fillPolygons(f, color: c, projection, &canvas) }
            }
        }
        if !style.hidden.contains(.parks) {
            for f in byLayer[.park, default: []] { fillPolygons(f, color: style.park, projection, &canvas) }
        }
        if !style.hidden.contains(.water) {
            for f in byLayer[.water, default: []] { fillPolygons(f, color: style.water, projection, &canvas) }
            for f in byLayer[.waterway, default: []] {
                let w: Double = switch f.featureClass { case "river": 6; case "canal": 5; default: 2.5 }
                strokeLines(f, StrokeStyle(width: max(0.7, w * scale)), color: style.water, projection, &canvas)
            }
        }
        if !style.hidden.contains(.buildings), zoom >= 14 {
            for f in byLayer[.building, default: []] {
                fillPolygons(f, color: style.building, projection, &canvas)
                // Outlines from z15, where buildings are large enough for one to show.
                if zoom >= 15 {
                    outlinePolygons(f, StrokeStyle(width: 0.6, join: .miter, cap: .butt), color: style.buildingOutline, projection, &canvas)
                }
            }
        }
        if !style.hidden.contains(.roads) || !style.hidden.contains(.railways) {
            drawTransportation(byLayer[.transportation, default: []], scale: scale, projection, &canvas)
        }
        if !style.hidden.contains(.boundaries) {
            for f in byLayer[.boundary, default: []] {
                strokeLines(f, StrokeStyle(width: 1.5, dashes: [6, 3, 2, 3]), color: Color(hex: 0x8D618B), projection, &canvas)
            }
        }
        drawPedestrian(byLayer[.pedestrian, default: []], scale: scale, projection, &canvas)
    }

    // MARK: Areas and lines

    private func fillPolygons(_ f: MapFeature, color: Color, _ projection: some RenderProjection, _ canvas: inout Canvas) {
        guard case .polygons(let polygons) = f.geometry else { return }
        var path = Path()
        for p in polygons {
            path.append(Path(polyline: projection.pixelRing(p.exterior), closed: true))
            for h in p.holes { path.append(Path(polyline: projection.pixelRing(h), closed: true)) }
        }
        // Even-odd: holes are holes whatever their winding.
        canvas.fill(path, color: color, rule: .evenOdd)
    }

    private func outlinePolygons(_ f: MapFeature, _ stroke: StrokeStyle, color: Color, _ projection: some RenderProjection, _ canvas: inout Canvas) {
        guard case .polygons(let polygons) = f.geometry else { return }
        var path = Path()
        for p in polygons { for ring in [p.exterior] + p.holes { path.append(Path(polyline: projection.pixelRing(ring), closed: true)) } }
        canvas.stroke(path, style: stroke, color: color)
    }

    private func linePath(_ f: MapFeature, _ projection: some RenderProjection) -> Path? {
        var path = Path()
        switch f.geometry {
        case .lines(let lines):
            for l in lines { for piece in projection.pixelLines(l) { path.append(Path(polyline: piece)) } }
        case .polygons(let polygons):
            for p in polygons { path.append(Path(polyline: projection.pixelRing(p.exterior), closed: true)) }
        case .points: return nil
        }
        return path.isEmpty ? nil : path
    }

    private func strokeLines(_ f: MapFeature, _ stroke: StrokeStyle, color: Color, _ projection: some RenderProjection, _ canvas: inout Canvas) {
        if let path = linePath(f, projection) { canvas.stroke(path, style: stroke, color: color) }
    }

    // MARK: Roads and railways

    private func drawTransportation(_ features: [MapFeature], scale: Double, _ projection: some RenderProjection, _ canvas: inout Canvas) {
        var roads: [RoadStroke] = []
        var rails: [(Path, String, String?)] = []
        for f in features {
            guard let cls = f.featureClass, let path = linePath(f, projection) else { continue }
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
            // Tunnels: a dashed casing and a fill faded towards white.
            for r in group where r.look.casing > 0 {
                let w = max(0.8, r.look.width * scale) + 2 * max(0.5, r.look.casing * min(1, scale * 2))
                canvas.stroke(r.path, style: StrokeStyle(width: w, join: .round, cap: .butt, dashes: tunnel ? [5, 3] : []), color: r.look.casingColor)
            }
            for r in group {
                let w = max(r.look.casing > 0 ? 0.8 : 0.6, r.look.width * (r.look.casing > 0 ? scale : max(scale, 0.75)))
                let fill = tunnel ? r.look.fill.mixed(with: .white, 0.55) : r.look.fill
                canvas.stroke(r.path, style: StrokeStyle(width: w, join: .round, cap: .round, dashes: r.look.dashes), color: fill)
            }
            start = end
        }
        for (path, cls, brunnel) in rails {
            let grey = Color(hex: brunnel == "tunnel" ? 0xA0A0A0 : 0x707070)
            if cls == "rail" {
                canvas.stroke(path, style: StrokeStyle(width: 3, join: .round, cap: .butt), color: grey)
                canvas.stroke(path, style: StrokeStyle(width: 1.5, join: .round, cap: .butt, dashes: [6, 6]), color: .white)
            } else {
                canvas.stroke(path, style: StrokeStyle(width: 1.5, join: .round, cap: .butt), color: grey)
            }
        }
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
            let r = 9.0, d = 22.0
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

/// One road ready to stroke.
private struct RoadStroke {
    let path: Path
    let look: MapStyle.RoadLook
    let brunnel: String?
    let layer: Int64
}
