import CloudSyncTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `serve --db postgres://…` as a clinic's backend (issue 35): each patient's pushes and exports go
/// into their rows of the store's tables in PostgreSQL, counted by the store's rule; every reader
/// (`status`, `aggregate`, `export`, `report`, `mcp`) takes `--store postgres://… --user NAME` and
/// gives what it gives for a store file fed the same inputs in the same order; the report route
/// answers the patient and their carer only; the administrator's erase removes the patient's rows,
/// in one transaction, and no other patient's. On a real PostgreSQL, as a role that is not a superuser.
@Suite(.enabled(if: PostgresCluster.isAvailable, "PostgreSQL is not installed (Debian: postgresql)"))
struct ClinicPostgresTests {
    /// A reader's output on both stores, the store's name taken out.
    static func same(_ arguments: [String], file: String, clinic: String, user: String) throws -> (file: String, clinic: String) {
        let onFile = try CLI.run(arguments + ["--store", file])
        let onClinic = try CLI.run(arguments + ["--store", clinic, "--user", user])
        #expect(onFile.status == 0 && onClinic.status == 0, "\(arguments): \(onFile.stderr) | \(onClinic.stderr)")
        return (String(decoding: onFile.stdout, as: UTF8.self), String(decoding: onClinic.stdout, as: UTF8.self))
    }

    @Test func aPatientsPushesAndExportsOnPostgreSQLReadBackAsFromAStoreFile() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let address = try cluster.addOwnedDatabase("clinic", role: "clinic", password: "clinic-password")
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let serve = try ServeProcess(["--tokens", try ClinicStoresTests.tokensFile(in: dir, ClinicStoresTests.everyone)], directory: dir,
                                     database: address)
        defer { _ = serve.stop() }
        #expect(serve.log.contains("go into each patient's rows of the store's tables in postgres://clinic@localhost/clinic"), "\(serve.log)")
        #expect(!serve.log.contains("clinic-password"))

        // Alice: her export, then her phone's push, then the export again. The same into a file.
        let export = try ClinicStoresTests.upload(serve, Paths.sampleZip, type: "application/zip", token: ClinicStoresTests.alice)
        #expect(export.status == 201 && export.object["stored"] as? Int == 24, "\(export)")
        let pushBody = try Data(contentsOf: URL(fileURLWithPath: Paths.samplePhoneArrays))
        let push = try serve.request("POST", "/health-auto-export", body: pushBody, token: ClinicStoresTests.alice)
        #expect(push.status == 200, "\(push)")
        let again = try ClinicStoresTests.upload(serve, Paths.sampleXML, type: "application/xml", token: ClinicStoresTests.alice)
        #expect(again.status == 201 && again.object["stored"] as? Int == 0, "\(again)")
        let file = dir.appendingPathComponent("alice.sqlite").path
        for input in [Paths.sampleZip, Paths.samplePhoneArrays, Paths.sampleXML] {
            let imported = try CLI.run(["import", input, "--store", file])
            #expect(imported.status == 0, "\(imported.stderr)")
        }
        // Bob pushes too: none of it is alice's.
        let bobs = try serve.request("POST", "/health-auto-export", body: try Data(contentsOf: URL(fileURLWithPath: Paths.sampleHealthAutoExport)),
                                     token: ClinicStoresTests.bob)
        #expect(bobs.status == 200 && bobs.object["stored"] as? Int == 15, "\(bobs)")

        for arguments in [["aggregate", "--bucket", "day"], ["aggregate", "--bucket", "hour", "--merge-sources", "--format", "jsonl"],
                          ["export", "--format", "jsonl"], ["export", "--kind", "routes", "--format", "geojson"],
                          ["export", "--kind", "medications", "--format", "jsonl"], ["export", "--kind", "ecg", "--format", "jsonl"], ["export", "--kind", "state-of-mind", "--format", "jsonl"]] {
            let outputs = try Self.same(arguments, file: file, clinic: address, user: "alice")
            #expect(!outputs.file.isEmpty && outputs.clinic == outputs.file, "\(arguments)")
        }
        let status = try Self.same(["status", "--json"], file: file, clinic: address, user: "alice")
        let fileStatus = try #require(try JSONSerialization.jsonObject(with: Data(status.file.utf8)) as? [String: Any])
        let clinicStatus = try #require(try JSONSerialization.jsonObject(with: Data(status.clinic.utf8)) as? [String: Any])
        for key in ["metrics", "repeats", "superseded", "pending", "firstStart", "lastEnd"] {
            #expect("\(fileStatus[key] ?? "-")" == "\(clinicStatus[key] ?? "-")", "status \(key)")
        }
        let sorted = { (value: Any?) throws -> String in
            String(decoding: try JSONSerialization.data(withJSONObject: value ?? [:], options: [.sortedKeys]), as: UTF8.self)
        }
        #expect(try sorted(clinicStatus["byType"]) == sorted(fileStatus["byType"]))
        #expect(try sorted(clinicStatus["records"]) == sorted(fileStatus["records"]))
        #expect(!"\(clinicStatus)".contains("clinic-password"))

        // The report: the same page from the file, the clinic's reader and the route.
        let report = try Self.same(["report", "--output", "-"], file: file, clinic: address, user: "alice")
        // The last import's input is named as it came (a file, or an upload), and its minute is when
        // it ran: the file's import and the upload may fall on either side of a minute (CI did so).
        let strip = { (html: String) in
            html.replacingOccurrences(of: #"Last import: [^<(]* \("#, with: "Last import: INPUT on MINUTE (", options: .regularExpression)
        }
        #expect(strip(report.clinic) == strip(report.file))
        var request = URLRequest(url: URL(string: serve.url + "/report?user=alice")!)
        request.setValue("Bearer \(ClinicStoresTests.carol)", forHTTPHeaderField: "Authorization")
        let (pageStatus, page) = ServeProcess.send(request)
        #expect(pageStatus == 200 && String(decoding: page, as: UTF8.self).contains("<html"))
        request.setValue("Bearer \(ClinicStoresTests.bob)", forHTTPHeaderField: "Authorization")
        #expect(ServeProcess.send(request).0 == 403)

        // mcp: the same answers from her rows as from the file; its sql tool says it reads files only.
        let calls = [("sleep", "{}"), ("workouts", "{}"), ("medications", "{}"), ("sql", #"{"query":"SELECT count(*) FROM metrics"}"#)]
        let fromFile = try MCPScript.results(of: calls, ["--store", file])
        let fromClinic = try MCPScript.results(of: calls, ["--store", address, "--user", "alice"])
        #expect(fromFile.run.status == 0 && fromClinic.run.status == 0, "\(fromFile.run.stderr) | \(fromClinic.run.stderr)")
        for index in 0...2 {
            #expect(fromFile.results[index] != nil && fromClinic.results[index] == fromFile.results[index], "tool \(calls[index].0)")
        }
        #expect(fromClinic.results[3]?.contains("reads a store file only") == true && fromClinic.results[3]?.contains(#""isError":true"#) == true,
                "\(fromClinic.results[3] ?? "-")")

        // The clinic's database holds no store for a patient who never sent anything.
        let nobody = try CLI.run(["status", "--store", address, "--user", "dave"])
        #expect(nobody.status == 66 && nobody.stderr.contains("no store for dave yet"), "\(nobody.stderr)")
        #expect(!nobody.stderr.contains("clinic-password"))
        // A clinic's database without --user is refused with what to add.
        let noUser = try CLI.run(["status", "--store", address])
        #expect(noUser.status == 64 && noUser.stderr.contains("--user NAME") && !noUser.stderr.contains("clinic-password"), "\(noUser.stderr)")

        // The administrator erases alice: every row of her store, counted; bob's stay.
        let erased = try serve.request("DELETE", "/api/v1/users/alice", token: ClinicStoresTests.root)
        let counts = (erased.object["erased"] as? [String: Int]) ?? [:]
        #expect(erased.status == 200 && counts["store.metric"] ?? 0 >= 24 && counts["store.route"] == 2, "\(erased)")
        let aliceAfter = try CLI.run(["status", "--store", address, "--user", "alice"])
        #expect(aliceAfter.status == 66, "\(aliceAfter.stderr)")
        #expect(try cluster.psql("SELECT count(*) FROM metric WHERE owner = 'alice'", database: "clinic")
            .trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        let bobAfter = try CLI.run(["status", "--store", address, "--user", "bob", "--json"])
        let bobStatus = try #require(try JSONSerialization.jsonObject(with: bobAfter.stdout) as? [String: Any])
        #expect(bobStatus["metrics"] as? Int == 15)
    }
}
