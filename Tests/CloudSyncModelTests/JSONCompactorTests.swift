import CloudSyncModel
import CloudSyncTesting
import Foundation
import Testing

/// FHIR resources come out unchanged but on one line: whitespace between tokens goes, every token stays.
@Suite struct JSONCompactorTests {
    func compact(_ text: String, depth: Int = JSONCompactor.defaultMaximumDepth) throws -> String {
        let bytes = Array(text.utf8)
        return String(decoding: try bytes.withUnsafeBufferPointer { try JSONCompactor.compact($0, maximumDepth: depth) }, as: UTF8.self)
    }

    @Test func keepsEveryTokenAsWritten() throws {
        let text = "\u{FEFF}{\n  \"a\" : [ 1, -0.50, 6.30e+2, true, false, null ],\r\n\t\"b\" : { \"c\" : \"x \\\" \\u00e9 \\n y\" , \"d\":{} , \"e\":[] }\n}\n"
        #expect(try compact(text) == #"{"a":[1,-0.50,6.30e+2,true,false,null],"b":{"c":"x \" \u00e9 \n y","d":{},"e":[]}}"#)
        #expect(try compact(" 42 ") == "42")
        #expect(try compact("\"Zoë\"") == "\"Zoë\"")
    }

    @Test(arguments: [
        ("", "no JSON value"),
        ("{\"a\":1", "ends inside"),
        ("{\"a\" 1}", "expected ':'"),
        ("{a:1}", "member name in quotes"),
        ("[1 2]", "expected ','"),
        ("[01]", "expected ','"),
        ("[1.]", "digits after its '.'"),
        ("[tru]", "does not start a JSON value"),
        ("[\"a\u{01}\"]", "control character"),
        ("[\"\\x\"]", "unknown escape"),
        ("[\"\\u12\"]", "four hexadecimal digits"),
        ("{} {}", "more after the end"),
        ("[1,]", "does not start a JSON value"),
    ])
    func refusesWhatIsNotJSON(_ text: String, _ problem: String) {
        #expect { try compact(text) } throws: { "\($0)".contains(problem) }
    }

    @Test func boundsTheNestingAndNamesTheLine() {
        let deep = String(repeating: "[", count: 1_000_000) + String(repeating: "]", count: 1_000_000)
        #expect { try compact(deep) } throws: { "\($0)" == "line 1: nested deeper than 100 levels" }
        #expect((try? compact(String(repeating: "[", count: 100) + String(repeating: "]", count: 100))) != nil)
        #expect { try compact("{\n\"a\":\n[1,\n2,,\n3]}") } throws: { "\($0)".hasPrefix("line 4:") }
    }

    @Test func refusesBytesThatAreNotUTF8() {
        let bytes: [UInt8] = [0x5B, 0x22, 0xFF, 0x22, 0x5D]   // ["\xFF"]
        #expect { try bytes.withUnsafeBufferPointer { try JSONCompactor.compact($0) } } throws: { "\($0)" == "not UTF-8 text" }
    }

    @Test func readsTopLevelStrings() throws {
        let compactBytes = Array(try compact(#"{"meta":{"resourceType":"no"},"resourceType":"Observation","id":"x"}"#).utf8)
        #expect(JSONCompactor.topLevelString("resourceType", in: compactBytes) == "Observation")
        #expect(JSONCompactor.topLevelString("id", in: compactBytes) == "x")
        #expect(JSONCompactor.topLevelString("status", in: compactBytes) == nil)
    }
}
