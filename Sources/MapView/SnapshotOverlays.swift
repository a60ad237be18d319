public import GeoCore
public import MapData
public import MapRenderer

extension MapRenderer.MapStyle {
    /// The day style with the legacy snapshot's switches (`geo snapshot --hide`, `--show-poi`,
    /// `--show-pedestrian`, `--language`; what `DefaultStyle.Options(hiding:poiClasses:pedestrianClasses:)`
    /// is for the built-in MapLibre styles): `hidden` categories left out; POIs and pedestrian
    /// features only of the classes named, every class for "all"; labels in OSM `name:LANG`
    /// where a feature has it.
    public static func day(hiding hidden: Set<MapCategory>, poiClasses: Set<String>, pedestrianClasses: Set<String>,
                           language: String?) -> MapRenderer.MapStyle {
        var style = MapRenderer.MapStyle.day
        style.hidden = hidden
        style.showsAllPOIs = poiClasses.contains("all")
        style.shownPOIClasses = poiClasses
        style.showsAllPedestrianFeatures = pedestrianClasses.contains("all")
        style.shownPedestrianClasses = pedestrianClasses
        style.language = language
        return style
    }
}

extension MapView {
    /// Adds what a snapshot draws over the map in the same pass (`geo snapshot --track`,
    /// `--marker`), in order: each line of two or more points as a polyline (a GPX file's track
    /// segments and routes; a single point is no line and is left out), then a pin at each of
    /// `markers`.
    public func addOverlays(lines: [[Coordinate]], markers: [Coordinate]) {
        for line in lines where line.count > 1 { add(.polyline(MapPolyline(line))) }
        for marker in markers { add(.marker(MapMarker(marker))) }
    }
}

extension MapFeatureIndex {
    /// The features a snapshot of `width` × `height` pixels around `centre` draws (`geo snapshot`):
    /// of an `archive`, those of the tiles that the Web Mercator view at renderer zoom `zoom`
    /// (256-pixel tiles, ``MapView/rendererZoom(cameraZoom:)``) turned by `orientation` degrees
    /// shows, read at that zoom (`init(_:visibleIn:)`); without an archive, all of `features`,
    /// read whole.
    /// - Throws: `RenderError` for a zoom outside 0…24 or an orientation that is not finite;
    ///   the archive's error for a tile that cannot be read.
    public init(drawing archive: TiledMapFeatures?, or features: [MapFeature], around centre: Coordinate, zoom: Double,
                orientation: Double, width: Int, height: Int) throws {
        guard let archive else {
            self.init(features)
            return
        }
        let view = try MercatorViewport(center: centre, zoom: zoom, orientation: orientation, width: width, height: height)
        try self.init(archive, visibleIn: view)
    }
}
