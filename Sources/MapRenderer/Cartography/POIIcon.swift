import Platform

/// POI icons drawn as vector shapes: a coloured disc with a white symbol for the class group
/// (a cup, a fork and knife, a fuel pump, a "P", a cross, a bed, a bag, a book), or a dot.
/// The built-in painter draws them in place; the default style's sprite (StyleRendering's
/// `DefaultStyleSprite`) holds them as images.
public enum POIIcon {
    /// The icon's radius, pixels.
    public static let radius = 8.0

    /// The classes whose icon differs from the grey dot of any other class: a pictogram, a
    /// colour of their group (`MapStyle.poiColor`), or both.
    public static let classes = ["cafe", "restaurant", "fast_food", "bar", "fuel", "parking", "bicycle_parking", "bus", "railway", "tram", "ferry",
                                 "hospital", "doctors", "pharmacy", "school", "college", "library", "museum", "theatre", "cinema", "artwork",
                                 "attraction", "shop", "lodging", "park", "playground", "sports", "stadium", "swimming_pool", "viewpoint"]

    /// The icon of `featureClass` (any class outside `classes` gets the grey dot) on its own: the
    /// disc and its white rim centred in a transparent square of 2 × (radius + 2) icon pixels,
    /// `pixelRatio` device pixels each.
    public static func image(_ featureClass: String, pixelRatio: Int) throws(RenderError) -> Pixmap {
        let side = 2 * (Int(radius) + 2) * pixelRatio
        var canvas = try Canvas(width: side, height: side, background: .transparent)
        draw(featureClass, at: Point(x: Double(side) / 2, y: Double(side) / 2), scale: Double(pixelRatio), color: MapStyle.day.poiColor(featureClass), on: &canvas)
        return canvas.pixmap
    }

    /// Draws the icon centred at `c`, `scale` device pixels per icon pixel.
    static func draw(_ featureClass: String, at c: Point, scale s: Double = 1, color: Color, on canvas: inout Canvas) {
        func point(_ x: Double, _ y: Double) -> Point { Point(x: c.x + x * s, y: c.y + y * s) }
        func circle(_ x: Double, _ y: Double, _ r: Double) -> Path { Path(circleAt: point(x, y), radius: r * s) }
        func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> Path { Path(rectX: c.x + x * s, y: c.y + y * s, width: w * s, height: h * s) }
        func line(_ pts: [(Double, Double)], _ w: Double, _ ink: Color = .white) {
            canvas.stroke(Path(polyline: pts.map { point($0.0, $0.1) }), style: StrokeStyle(width: w * s, join: .round, cap: .round), color: ink)
        }
        func ring(_ x: Double, _ y: Double, _ r: Double, _ w: Double) { canvas.stroke(circle(x, y, r), style: StrokeStyle(width: w * s), color: .white) }
        canvas.fill(circle(0, 0, radius + 1), color: .white)
        canvas.fill(circle(0, 0, radius), color: color)
        let white = Color.white
        switch featureClass {
        case "cafe":
            // A cup with a handle.
            canvas.fill(rect(-4, -2, 6, 5), color: white)
            ring(3, 0.5, 1.8, 1.2)
            line([(-4.5, 4.5), (2.5, 4.5)], 1)
        case "restaurant", "fast_food", "bar":
            // Fork and knife.
            line([(-2.5, -5), (-2.5, 5)], 1.2)
            line([(-4, -5), (-4, -1.5), (-1, -1.5), (-1, -5)], 0.9)
            line([(3, -5), (3, 5)], 1.2)
            canvas.fill(Path(polyline: [point(3, -5), point(4.6, -2), point(3, 0.5)], closed: true), color: white)
        case "fuel":
            // A pump and its hose.
            canvas.fill(rect(-4, -5, 5, 10), color: white)
            canvas.fill(rect(-3, -4, 3, 2.5), color: color)
            line([(1, -2), (3.5, -1), (3.5, 3), (2.2, 3.5)], 1)
        case "parking", "bicycle_parking":
            // "P": a stem and a bowl.
            line([(-2.5, 5), (-2.5, -5), (0.5, -5)], 1.8)
            ring(0.5, -2, 3, 1.8)
            canvas.fill(rect(-2.5, -5, 3, 1.8), color: white)
        case "hospital", "doctors", "pharmacy":
            canvas.fill(rect(-1.5, -5, 3, 10), color: white)
            canvas.fill(rect(-5, -1.5, 10, 3), color: white)
        case "lodging":
            // A bed.
            line([(-5, -3), (-5, 4)], 1.2)
            canvas.fill(rect(-5, 0, 10, 2.5), color: white)
            canvas.fill(circle(-2.5, -1.5, 1.5), color: white)
            line([(5, 0), (5, 4)], 1.2)
        case "shop":
            // A bag with handles.
            canvas.fill(rect(-4, -2, 8, 7), color: white)
            ring(0, -2, 2.2, 1)
        case "school", "college", "library":
            // An open book.
            canvas.fill(Path(polyline: [point(-5, -3), point(0, -2), point(5, -3), point(5, 4), point(0, 5), point(-5, 4)], closed: true), color: white)
            line([(0, -2), (0, 5)], 0.8, color)
        default:
            canvas.fill(circle(0, 0, 3), color: white)
        }
    }
}
