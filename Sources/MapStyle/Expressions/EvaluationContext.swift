/// A parse error of an expression: `key` is the path of the bad part inside the expression
/// (`[2]`, `[1][0]`; empty for the whole), as MapLibre reports it.
public struct ExpressionParsingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var key: String
    public var message: String
    public var description: String { key.isEmpty ? message : "\(key): \(message)" }
    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }
}

/// An evaluation error (MapLibre's `RuntimeError`): `key` is the path of the expression that
/// failed, as in ``ExpressionParsingError``.
public struct ExpressionEvaluationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var key: String
    public var description: String { key.isEmpty ? message : "\(key): \(message)" }
    public init(message: String, key: String) {
        self.message = message
        self.key = key
    }
}

/// The camera-side inputs of an evaluation (MapLibre's `GlobalProperties`).
public struct ExpressionGlobals: Sendable {
    /// Zoom level; NaN when the caller has none.
    public var zoom = Double.nan
    public var heatmapDensity: Double?
    public var elevation: Double?
    public var lineProgress: Double?
    public var accumulated: ExpressionValue?
    /// The style's `state` (spec: `global-state`).
    public var globalState: [String: ExpressionValue] = [:]
    public init() {}
}

/// A feature as expressions see it.
public struct ExpressionFeature: Sendable {
    public var properties: [String: ExpressionValue] = [:]
    /// A number or string; nil when the feature has none.
    public var id: ExpressionValue?
    /// `Point`, `LineString`, `Polygon`, … (what `geometry-type` returns); nil when unknown.
    public var geometryType: String?
    /// Geometry in tile coordinates (extent 8192) of ``ExpressionEvaluator/canonicalTile``.
    public var geometry: [[TilePoint]]?
    public init() {}
}

/// A point in tile coordinates.
public struct TilePoint: Sendable, Equatable {
    public var x: Double, y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// A tile address `z/x/y` (XYZ scheme).
public struct CanonicalTile: Sendable, Equatable {
    public var z: Int, x: Int, y: Int
    public init(z: Int, x: Int, y: Int) { self.z = z; self.x = x; self.y = y }
}

/// What one evaluation reads: globals, the feature and its state, the tile, the images.
final class EvaluationContext {
    var globals = ExpressionGlobals()
    var feature: ExpressionFeature?
    var featureState: [String: ExpressionValue] = [:]
    var canonical: CanonicalTile?
    /// Image names the style has; nil when not known (images count as unavailable).
    var availableImages: [String]?
    private var colorCache: [String: StyleColor?] = [:]
    /// `let` binding values evaluated so far, by the binding's key path.
    var variables: [String: ExpressionValue] = [:]

    var properties: [String: ExpressionValue] { feature?.properties ?? [:] }

    /// A CSS colour string parsed once per evaluator.
    func parseColor(_ text: String) -> StyleColor? {
        if let cached = colorCache[text] { return cached }
        let color = StyleColor(css: text)
        colorCache[text] = color
        return color
    }
}
