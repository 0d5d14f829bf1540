import CloudSyncExport
import CloudSyncKinds
import CloudSyncModel
import CloudSyncInputs
@testable import CloudSyncStore
import CloudSyncTesting
import Foundation
import Testing

/// An import from a seekable zip writes each GPX route as it is decoded, beside export.xml, and
/// links it to its workout once export.xml is read (`LinkingRecordSink`): the routes and their
/// links are those `convert` reads, and a route a killed import left without its link gets it from
/// the next import.
@Suite struct EarlyRoutesTests {
    static func gpx(_ startMinute: Int) -> String {
        let points = (0..<4).map { index in
            let time = String(format: "2024-11-02T%02d:%02d:%02dZ", 8 + startMinute / 60, startMinute % 60, index * 5)
            return "<trkpt lon=\"2.35\(index)\" lat=\"48.85\(index)\"><ele>35.\(index)</ele><time>\(time)</time></trkpt>"
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\"><trk><trkseg>\(points.joined())</trkseg></trk></gpx>\n"
    }

    /// 40,000 heart rates, so that the mapping thread writes the routes between them, then the
    /// workouts: one names its route's file, one holds a route's time only, one has inline
    /// locations; a third route has no workout at all.
    static func archive(in directory: URL) throws -> String {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n <ExportDate value=\"2024-11-03 10:00:00 +0000\"/>\n"
        for index in 0..<40_000 {
            let date = String(format: "2024-10-%02d %02d:%02d:%02d +0000", 1 + index / 2000, index / 100 % 24, index % 60, index % 59)
            xml += " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" unit=\"count/min\" startDate=\"\(date)\" endDate=\"\(date)\" value=\"\(60 + index % 50)\"/>\n"
        }
        xml += """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Watch" startDate="2024-11-02 08:00:00 +0000" endDate="2024-11-02 08:30:00 +0000">
              <WorkoutRoute sourceName="Watch"><FileReference path="/workout-routes/route_a.gpx"/></WorkoutRoute>
             </Workout>
             <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="30" durationUnit="min" sourceName="Watch" startDate="2024-11-02 10:00:00 +0000" endDate="2024-11-02 10:30:00 +0000"/>
             <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="20" durationUnit="min" sourceName="iPhone" startDate="2016-05-01 18:00:00 +0200" endDate="2016-05-01 18:20:00 +0200">
              <WorkoutRoute sourceName="iPhone">
               <Location date="2016-05-01 18:00:05 +0200" latitude="48.8566" longitude="2.3522" altitude="35.1"/>
              </WorkoutRoute>
             </Workout>
            </HealthData>

            """
        return try ZipFixtures.make([("apple_health_export/export.xml", Data(xml.utf8)),
                                     ("apple_health_export/workout-routes/route_a.gpx", Data(gpx(0).utf8)),
                                     ("apple_health_export/workout-routes/route_b.gpx", Data(gpx(2 * 60 + 5).utf8)),
                                     ("apple_health_export/workout-routes/route_c.gpx", Data(gpx(5 * 60).utf8))],
                                    in: directory, name: "routes.zip")
    }

    static func routes(_ store: StagingStore) throws -> [Route] {
        let back = CollectingSink()
        try ExportQuery(store).records(RouteKind.self, to: back)
        return back.routes
    }

    static func byKey(_ routes: [Route]) -> [Route] { routes.sorted { $0.key < $1.key } }

    @Test func routesWrittenBesideExportXMLAreLinkedAsConvertLinksThem() throws {
        let fixture = try StoreFixture()
        let input = try Self.archive(in: fixture.directory)
        let read = CollectingSink()
        _ = try convert(RouteKind.self, input, into: read)
        let store = try fixture.open()
        #expect(try store.importExport(input).stored.records["routes"]?.new == 4)
        let stored = try Self.routes(store)
        #expect(Self.byKey(stored) == Self.byKey(read.routes))
        #expect(Set(stored.compactMap(\.workoutType)) == ["HKWorkoutActivityTypeRunning", "HKWorkoutActivityTypeCycling", "HKWorkoutActivityTypeWalking"])
        #expect(stored.filter { $0.workoutType == nil }.map(\.file) == ["workout-routes/route_c.gpx"])
        // Written while export.xml was read: before the inline route of its last workouts (`convert`
        // gives the archive's files after export.xml).
        #expect(stored.last?.file == nil && read.routes.first?.file == nil)
    }

    /// The archive imported, then its GPX routes left without their workouts, as an import killed
    /// between writing the routes and linking them leaves them; the next import, as `filter` says,
    /// must give back the routes the first one stored.
    static func relinked(filter: MetricFilter) throws {
        let fixture = try StoreFixture()
        let input = try archive(in: fixture.directory)
        let store = try fixture.open()
        _ = try store.importExport(input)
        let linked = try routes(store)
        try store.database.execute("UPDATE route SET workout_type = NULL, workout_start = NULL, workout_end = NULL WHERE file IS NOT NULL")
        let again = try store.importExport(input, filter: filter)
        #expect(again.stored.records["routes"]?.new == 0 && again.stored.records["routes"]?.already == 4)
        #expect(try routes(store) == linked)
        #expect(try store.database.scalarInt("SELECT count(*) FROM route_point") == 13)
    }

    @Test func aRouteLeftWithoutItsWorkoutIsLinkedByTheNextImport() throws { try Self.relinked(filter: .all) }

    /// The same, when the next import reads the routes after export.xml (a date filter: a route's
    /// date may be its workout's): its insert meets the stored row and gives it the link.
    @Test func aRouteLeftWithoutItsWorkoutIsLinkedByAnImportThatReadsItAfterExportXML() throws {
        try Self.relinked(filter: MetricFilter(since: 1_000_000_000))
    }
}
