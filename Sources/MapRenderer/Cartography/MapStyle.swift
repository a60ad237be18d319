import Platform
/// A category of map content that can be hidden (the seed's layer categories).
public enum MapCategory: String, CaseIterable, Sendable, Hashable {
    /// Oceans, lakes, rivers and streams.
    case water
    /// Land use and land cover: residential, wood, grass, farmland, …
    case landuse
    /// Parks, gardens, nature reserves.
    case parks
    case buildings
    /// Streets and roads of every class.
    case roads
    case railways
    /// Administrative boundaries.
    case boundaries
    /// Names of places: countries, cities, suburbs, …
    case places
    /// Names along streets.
    case streetNames = "street-names"
}

/// The default day style: colours and widths after the OpenStreetMap Carto conventions (land
/// cream, water blue, parks green, roads by class from pink motorways to white minor streets,
/// each with a darker casing), with switches for what is shown.
public struct MapStyle: Sendable {
    /// Categories not drawn.
    public var hidden: Set<MapCategory> = []
    /// Whether every POI class is shown but `hiddenPOIClasses` (true by default: the seed's map
    /// shows places and hides a category on request, e.g. petrol stations); false shows only
    /// `shownPOIClasses`.
    public var showsAllPOIs = true
    /// POI classes shown when `showsAllPOIs` is false (MapData `poi` layer `class`: "cafe", "fuel", …).
    public var shownPOIClasses: Set<String> = []
    /// POI classes hidden whatever else is set (the seed's `setVisibility:NO forPoiCategory:`).
    public var hiddenPOIClasses: Set<String> = []
    /// Pedestrian feature classes shown (`pedestrian` layer: "footway", "steps", "crossing",
    /// "elevator", "escalator", …); empty by default, as in the seed.
    public var shownPedestrianClasses: Set<String> = []
    public var showsAllPedestrianFeatures = false
    /// Label language: `name:LANG` is preferred to `name` when present (an OSM language code).
    public var language: String?

    public var land = Color(hex: 0xF2EFE9)
    public var water = Color(hex: 0xAAD3DF)
    public var park = Color(hex: 0xC8FACC)
    public var building = Color(hex: 0xD9D0C9)
    public var buildingOutline = Color(hex: 0xC4B6AB)

    public init() {}

    public static let day = MapStyle()

    /// Whether a POI of `featureClass` is drawn.
    public func showsPOI(_ featureClass: String) -> Bool {
        !hiddenPOIClasses.contains(featureClass) && (showsAllPOIs || shownPOIClasses.contains(featureClass))
    }

    /// How wide a `transportation` feature of `featureClass` is drawn at renderer zoom `zoom`
    /// (256-pixel tiles), casing included, pixels; nil for a class drawn as no line.
    public func transportationWidth(_ featureClass: String, zoom: Double) -> Double? {
        switch featureClass {
        case "rail": return 3
        case "transit": return 1.5
        default: return road(featureClass)?.outerWidth(scale: pow(2, zoom - 16))
        }
    }

    /// Whether a pedestrian feature of `featureClass` is drawn.
    public func showsPedestrian(_ featureClass: String) -> Bool {
        showsAllPedestrianFeatures || shownPedestrianClasses.contains(featureClass)
    }

    /// The fill of a land cover or land use class; nil draws nothing.
    func areaColor(_ featureClass: String) -> Color? {
        switch featureClass {
        case "wood": Color(hex: 0xADD19E)
        case "grass", "recreation_ground", "village_green": Color(hex: 0xCDEBB0)
        case "farmland": Color(hex: 0xEEF0D5)
        case "wetland": Color(hex: 0xD6E9E0)
        case "sand": Color(hex: 0xF5E9C6)
        case "rock": Color(hex: 0xE8E3DC)
        case "ice": Color(hex: 0xDDECEC)
        case "residential": Color(hex: 0xE0DFDF)
        case "commercial", "retail": Color(hex: 0xF2DAD9)
        case "industrial", "railway", "quarry", "garages", "construction", "brownfield": Color(hex: 0xEBDBE8)
        case "cemetery": Color(hex: 0xAACBAF)
        case "military": Color(hex: 0xF3E3DD)
        case "religious": Color(hex: 0xD0D0D0)
        case "school", "university", "college", "kindergarten", "hospital": Color(hex: 0xFFFFE5)
        case "stadium", "pitch", "track", "playground", "theme_park", "zoo": Color(hex: 0xAAE0CB)
        default: nil
        }
    }

    /// How one road class is drawn: widths at zoom 16 (pixels; halved per zoom level below,
    /// doubled above), fill and casing colours, the order among roads (higher on top).
    struct RoadLook {
        let width: Double
        let casing: Double
        let fill: Color
        let casingColor: Color
        let rank: Int
        let dashes: [Double]

        /// The casing's width at `scale` (2^(zoom − 16)), pixels.
        func casingWidth(scale: Double) -> Double { max(0.8, width * scale) + 2 * max(0.5, casing * min(1, scale * 2)) }
        /// The fill's width at `scale`, pixels.
        func fillWidth(scale: Double) -> Double { max(casing > 0 ? 0.8 : 0.6, width * (casing > 0 ? scale : max(scale, 0.75))) }
        /// The width drawn, the casing's when there is one, pixels.
        func outerWidth(scale: Double) -> Double { casing > 0 ? casingWidth(scale: scale) : fillWidth(scale: scale) }
    }

    func road(_ featureClass: String) -> RoadLook? {
        switch featureClass {
        case "motorway": RoadLook(width: 12, casing: 1.5, fill: Color(hex: 0xE892A2), casingColor: Color(hex: 0xDC2A67), rank: 9, dashes: [])
        case "trunk": RoadLook(width: 11, casing: 1.5, fill: Color(hex: 0xF9B29C), casingColor: Color(hex: 0xC84E2F), rank: 8, dashes: [])
        case "primary": RoadLook(width: 10, casing: 1.5, fill: Color(hex: 0xFCD6A4), casingColor: Color(hex: 0xA06B00), rank: 7, dashes: [])
        case "secondary": RoadLook(width: 9, casing: 1.5, fill: Color(hex: 0xF7FABF), casingColor: Color(hex: 0x707D05), rank: 6, dashes: [])
        case "tertiary": RoadLook(width: 8, casing: 1.2, fill: .white, casingColor: Color(hex: 0x8F8F8F), rank: 5, dashes: [])
        case "minor": RoadLook(width: 6.5, casing: 1, fill: .white, casingColor: Color(hex: 0xBBBBBB), rank: 4, dashes: [])
        case "pedestrian": RoadLook(width: 5.5, casing: 1, fill: Color(hex: 0xDDDDE8), casingColor: Color(hex: 0x999999), rank: 3, dashes: [])
        case "service": RoadLook(width: 3.5, casing: 1, fill: .white, casingColor: Color(hex: 0xBBBBBB), rank: 2, dashes: [])
        case "track": RoadLook(width: 1.6, casing: 0, fill: Color(hex: 0x996600), casingColor: .transparent, rank: 1, dashes: [5, 3])
        case "path": RoadLook(width: 1.2, casing: 0, fill: Color(hex: 0x0000FF), casingColor: .transparent, rank: 1, dashes: [3, 2])
        default: nil
        }
    }

    /// POI marker colour per class group (Carto's amenity palette).
    public func poiColor(_ featureClass: String) -> Color {
        switch featureClass {
        case "cafe", "restaurant", "fast_food", "bar": Color(hex: 0xC77400)
        case "fuel", "parking", "bicycle_parking", "bus", "railway", "tram", "ferry": Color(hex: 0x0092DA)
        case "hospital", "doctors", "pharmacy": Color(hex: 0xBF0000)
        case "school", "college", "library", "museum", "theatre", "cinema", "artwork", "attraction": Color(hex: 0x734A08)
        case "shop": Color(hex: 0xAC39AC)
        case "lodging": Color(hex: 0x0E5BA8)
        case "park", "playground", "sports", "stadium", "swimming_pool", "viewpoint": Color(hex: 0x39AC39)
        default: Color(hex: 0x666666)
        }
    }
}
