import Foundation
import GeoCore
import OSMImport
import Routing
public import Positioning

extension LivePageServer {
    /// What `geo map` follows over the sample city without `--source`: a simulated drive along
    /// its demo route (`SampleCityRoute`) at 13.9 m/s, a fix a second with 4 m of noise (seed
    /// 7), dated from now.
    /// - Throws: the sample city's and its route's errors.
    public static func sampleCityDrive() throws -> RouteSimulationSource {
        let route = try SampleCityRoute.make().route.geometry
        return try RouteSimulationSource(polyline: route, movementSpeed: .metersPerSecond(13.9), updateInterval: .seconds(1),
                                         noise: .init(sigma: .meters(4), seed: 7), startDate: Date())
    }

    /// What `geo map` follows without `--source`: the ``sampleCityDrive()`` over the sample
    /// city (`sampleCity`: no `--data`), nothing over other data.
    /// - Throws: as ``sampleCityDrive()``.
    public static func defaultSource(sampleCity: Bool) throws -> (any PositionSource)? { sampleCity ? try sampleCityDrive() : nil }
}
