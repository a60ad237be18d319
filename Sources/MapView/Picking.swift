public import GeoCore
public import MapCamera
public import MapData
import MapRenderer

import Platform

/// A map object under a picked point.
public struct PickedObject: Sendable {
    public let id: MapObjectID
    public let object: MapObject
}

/// What lies under a point of a map view (the seed's `objectsAtPoint:` / HERE's `pickMapItems`):
/// the map objects and the drawn features, each list top-most first (the reverse of drawing order).
public struct MapPickResult: Sendable {
    /// Markers with an image, then lines, areas and circles, then pins, each newest first.
    public var objects: [PickedObject]
    /// POIs, then railways and roads (bridges over the ground over tunnels, wider classes
    /// over narrower), then buildings; each feature keeps its layer and properties.
    public var features: [MapFeature]

    public var isEmpty: Bool { objects.isEmpty && features.isEmpty }
}

extension MapView {
    /// The map objects and drawn features within `radius` of `point`, in screen space: a line
    /// hits within half its drawn width plus `radius`, an area inside its outer ring and out of
    /// its holes (even-odd) or within `radius` of an edge, a marker within `radius` of its image
    /// or pin. Features follow the style and zoom as the frame draws them: hidden categories,
    /// hidden POI classes and features above their zoom are not picked. Searched layers: `poi`,
    /// `transportation`, `building`.
    /// - Parameters:
    ///   - point: pixels (points) from the view's top-left corner.
    ///   - radius: how far from `point` still hits, pixels, ≥ 0.
    /// - Throws: `MapViewError.invalidValue` when the point is not finite or the radius is negative or not finite.
    public func pickMapItems(at point: ScreenPoint, radius: Double) throws(MapViewError) -> MapPickResult {
        guard point.x.isFinite, point.y.isFinite else { throw MapViewError(.invalidValue, "pick point \(point) is not finite") }
        guard radius.isFinite, radius >= 0 else { throw MapViewError(.invalidValue, "pick radius \(radius) px must be finite and ≥ 0") }
        let projection = CameraProjection(camera.state)
        let p = Point(x: point.x, y: point.y)
        return MapPickResult(objects: pickObjects(p, radius, projection), features: pickFeatures(p, radius, projection))
    }

    private func pickObjects(_ p: Point, _ radius: Double, _ projection: CameraProjection) -> [PickedObject] {
        var images: [PickedObject] = [], shapes: [PickedObject] = [], pins: [PickedObject] = []
        for (id, object) in objects.reversed() {
            let picked = PickedObject(id: id, object: object)
            switch object {
            case .marker(let m):
                guard let tip = projection.pixel(for: MapPoint(m.coordinate)) else { continue }
                if let image = m.image {
                    let anchor = m.anchor ?? Point(x: Double(image.width) / 2, y: Double(image.height))
                    let x0 = tip.x - anchor.x, y0 = tip.y - anchor.y
                    let dx = max(x0 - p.x, 0, p.x - (x0 + Double(image.width))), dy = max(y0 - p.y, 0, p.y - (y0 + Double(image.height)))
                    if (dx * dx + dy * dy).squareRoot() <= radius { images.append(picked) }
                } else if ScreenHit.pinDistance(p, tip: tip) <= radius {
                    pins.append(picked)
                }
            case .polyline(let l):
                let lines = projection.pixelLines(l.coordinates.map(MapPoint.init))
                // The white casing adds a pixel on each side.
                if ScreenHit.distance(p, toLines: lines, closed: false) <= l.width / 2 + 1 + radius { shapes.append(picked) }
            case .polygon(let g):
                if ScreenHit.hitsArea(p, radius, outer: g.polygon.exterior, holes: g.polygon.holes, edge: g.stroke == nil ? 0 : g.strokeWidth / 2, projection) { shapes.append(picked) }
            case .circle(let c):
                if ScreenHit.hitsArea(p, radius, outer: ObjectDrawing.ring(c), holes: [], edge: ObjectDrawing.circleStrokeWidth / 2, projection) { shapes.append(picked) }
            }
        }
        return images + shapes + pins
    }

    private func pickFeatures(_ p: Point, _ radius: Double, _ projection: CameraProjection) -> [MapFeature] {
        let zoom = min(max(Self.rendererZoom(cameraZoom: camera.state.zoomLevel), 0), 24)
        let zoomLevel = Int(zoom.rounded(.down))
        // Far enough to reach the centre line of the widest road, or a POI's centre.
        let reach = radius + max(MapPainter.poiIconRadius, (style.transportationWidth("motorway", zoom: zoom) ?? 0) / 2) + 1
        var pois: [MapFeature] = [], ways: [(feature: MapFeature, order: (Int, Int64, Double))] = [], buildings: [MapFeature] = []
        for f in features.features(in: searchBounds(p, reach, projection)).reversed() where f.minZoom <= zoomLevel {
            guard let cls = f.featureClass else { continue }
            switch (f.layer, f.geometry) {
            case (.poi, .points(let ps)):
                guard style.showsPOI(cls), let first = ps.first, let c = projection.pixel(for: first) else { continue }
                if hypot(c.x - p.x, c.y - p.y) <= MapPainter.poiIconRadius + radius { pois.append(f) }
            case (.transportation, .lines(let lines)):
                let rail = cls == "rail" || cls == "transit"
                guard !style.hidden.contains(rail ? .railways : .roads), let width = style.transportationWidth(cls, zoom: zoom) else { continue }
                let pixels = lines.flatMap { projection.pixelLines($0) }
                guard ScreenHit.distance(p, toLines: pixels, closed: false) <= width / 2 + radius else { continue }
                let brunnel: String? = if case .string(let b) = f["brunnel"] { b } else { nil }
                let layer: Int64 = if case .int(let l) = f["layer"] { l } else { 0 }
                // Railways are drawn after every road; roads by level, layer, then class (width).
                let level = rail ? 3 : brunnel == "tunnel" ? 0 : brunnel == "bridge" ? 2 : 1
                ways.append((f, (level, rail ? 0 : layer, width)))
            case (.building, .polygons(let polygons)):
                guard !style.hidden.contains(.buildings), zoom >= 14 else { continue }
                let edge = zoom >= 15 ? 0.3 : 0
                if polygons.contains(where: { ScreenHit.hitsArea(p, radius, outer: $0.exterior, holes: $0.holes, edge: edge, projection) }) { buildings.append(f) }
            default: continue
            }
        }
        // Stable: equal orders keep the newest-first order of the index.
        let sortedWays = ways.enumerated().sorted { a, b in
            a.element.order != b.element.order ? a.element.order > b.element.order : a.offset < b.offset
        }.map(\.element.feature)
        return pois + sortedWays + buildings
    }

    /// The world box under the screen square of half-side `reach` about `p`; the view's own
    /// box where a corner shows no ground (space, sky).
    private func searchBounds(_ p: Point, _ reach: Double, _ projection: CameraProjection) -> WorldRect? {
        let corners = [(-1.0, -1.0), (1, -1), (1, 1), (-1, 1)].map { camera.state.coordinate(at: ScreenPoint(x: p.x + $0.0 * reach, y: p.y + $0.1 * reach)) }
        let world = corners.compactMap { $0.map(MapPoint.init) }
        guard world.count == 4 else { return projection.visibleWorldBounds }
        let box = WorldRect(enclosing: world)!
        // A square across the antimeridian spans the world's width: search everything.
        return box.width < 0.5 ? box : nil
    }
}

/// Hit tests in screen space, pixels.
enum ScreenHit {
    /// Distance from `p` to the segment a–b.
    static func distance(_ p: Point, _ a: Point, _ b: Point) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y, len2 = dx * dx + dy * dy
        let t = len2 > 0 ? min(max(((p.x - a.x) * dx + (p.y - a.y) * dy) / len2, 0), 1) : 0
        return hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy))
    }

    /// Distance from `p` to the nearest of the lines (closed: rings); infinity when there are none.
    static func distance(_ p: Point, toLines lines: [[Point]], closed: Bool) -> Double {
        var best = Double.infinity
        for line in lines where !line.isEmpty {
            if line.count == 1 { best = min(best, hypot(p.x - line[0].x, p.y - line[0].y)) }
            for i in line.indices.dropFirst() { best = min(best, distance(p, line[i - 1], line[i])) }
            if closed, line.count > 2 { best = min(best, distance(p, line[line.count - 1], line[0])) }
        }
        return best
    }

    /// Whether `p` is inside the rings by the even-odd rule (a hole's inside is outside).
    static func evenOddContains(_ p: Point, _ rings: [[Point]]) -> Bool {
        var inside = false
        for ring in rings where ring.count > 2 {
            var j = ring.count - 1
            for i in ring.indices {
                let a = ring[i], b = ring[j]
                if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
                j = i
            }
        }
        return inside
    }

    /// Whether `p` hits an area: inside it (even-odd, holes out) or within `radius` plus
    /// `edge` (half its outline's width) of an outline.
    static func hitsArea<Ring: Collection>(_ p: Point, _ radius: Double, outer: Ring, holes: [Ring], edge: Double, _ projection: CameraProjection) -> Bool
    where Ring.Element: WorldPointConvertible {
        let rings = ([outer] + holes).map { projection.pixelRing($0.map(\.worldPoint)) }
        return evenOddContains(p, rings) || distance(p, toLines: rings, closed: true) <= radius + edge
    }

    /// About how far `p` is from the renderer's pin standing on `tip` (a head of radius r
    /// centred h above the tip, tapering to the tip; below the head the horizontal distance
    /// to the taper): 0 inside.
    static func pinDistance(_ p: Point, tip: Point) -> Double {
        let r = MapOverlay.pinHeadRadius, h = MapOverlay.pinHeadHeight
        let head = Point(x: tip.x, y: tip.y - h)
        let toHead = hypot(p.x - head.x, p.y - head.y) - r
        // Below the head: within the taper, whose half-width grows from 0 at the tip to r.
        let t = min(max((tip.y - p.y) / h, 0), 1)
        let toTaper = abs(p.x - tip.x) - r * t + max(p.y - tip.y, 0)
        return max(min(toHead, toTaper), 0)
    }
}

/// A point that has a normalised Web Mercator position: a coordinate, or a world point.
protocol WorldPointConvertible {
    var worldPoint: MapPoint { get }
}

extension Coordinate: WorldPointConvertible {
    var worldPoint: MapPoint { MapPoint(self) }
}

extension MapPoint: WorldPointConvertible {
    var worldPoint: MapPoint { self }
}
