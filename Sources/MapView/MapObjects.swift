public import GeoCore
public import MapData
public import MapRenderer

/// A line on the map (the seed's `NMAMapPolyline`): a recorded route, a track.
public struct MapPolyline: Sendable {
    public var coordinates: [Coordinate]
    /// Line width, pixels.
    public var width: Double
    public var color: Color

    public init(_ coordinates: [Coordinate], width: Double = 4, color: Color = Color(hex: 0x1E64F0)) {
        self.coordinates = coordinates
        self.width = width
        self.color = color
    }
}

/// A filled area on the map (the seed's `NMAMapPolygon`): a `MapPolygon` (MapData's: the outer
/// ring and its holes, in world units) filled even-odd and outlined.
public struct MapPolygonOverlay: Sendable {
    public var polygon: MapPolygon
    public var fill: Color
    public var stroke: Color?
    /// Outline width, pixels.
    public var strokeWidth: Double

    /// The area inside `ring` (coordinates, first point not repeated) less its `holes`.
    public init(_ ring: [Coordinate], holes: [[Coordinate]] = [], fill: Color = Color(hex: 0x1E64F0, alpha: 64), stroke: Color? = Color(hex: 0x1E64F0), strokeWidth: Double = 2) {
        self.polygon = MapPolygon(exterior: ring.map(MapPoint.init), holes: holes.map { $0.map(MapPoint.init) })
        self.fill = fill
        self.stroke = stroke
        self.strokeWidth = strokeWidth
    }
}

/// A circle of a radius on the ground (the seed's `NMAMapCircle`), drawn to scale.
public struct MapCircle: Sendable {
    public var center: Coordinate
    public var radius: Distance
    public var fill: Color
    public var stroke: Color

    public init(center: Coordinate, radius: Distance, fill: Color = Color(hex: 0x1E64F0, alpha: 48), stroke: Color = Color(hex: 0x1E64F0)) {
        self.center = center
        self.radius = radius
        self.fill = fill
        self.stroke = stroke
    }
}

/// A point annotation (the seed's `NMAMapMarker`): an image whose anchor pixel sits on the
/// coordinate, or the renderer's pin when there is no image.
public struct MapMarker: Sendable {
    public var coordinate: Coordinate
    public var image: Pixmap?
    /// The image pixel placed on the coordinate (default: the middle of the bottom edge).
    public var anchor: Point?

    public init(_ coordinate: Coordinate, image: Pixmap? = nil, anchor: Point? = nil) {
        self.coordinate = coordinate
        self.image = image
        self.anchor = anchor
    }
}

/// One object on a `MapView`.
public enum MapObject: Sendable {
    case polyline(MapPolyline)
    case polygon(MapPolygonOverlay)
    case circle(MapCircle)
    case marker(MapMarker)
}

/// The handle `MapView.add(_:)` returns, for `remove(_:)`.
public struct MapObjectID: Hashable, Sendable {
    let value: Int
}
