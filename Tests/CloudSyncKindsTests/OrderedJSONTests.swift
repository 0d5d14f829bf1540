@testable import CloudSyncKinds
import Foundation
import Testing

/// Reading back the JSON lines the kinds wrote: a member's text as written (a FHIR resource byte for
/// byte, a number's form) and an object's members in their order, where Foundation's parser would
/// reorder keys and reformat numbers.
@Suite struct OrderedJSONTests {
    static let line = #"{"type":"t","metadata":{"z":"1","a":"two, \"quoted\"","m":"{not} [json]"},"resource":{"value" : 6.30, "list":[1,{"k":"}"}]},"tail":null}"#

    @Test func aMemberIsGivenAsWritten() {
        #expect(OrderedJSON.member("type", in: Self.line) == #""t""#)
        #expect(OrderedJSON.member("resource", in: Self.line) == #"{"value" : 6.30, "list":[1,{"k":"}"}]}"#)
        #expect(OrderedJSON.member("tail", in: Self.line) == "null")
        #expect(OrderedJSON.member("absent", in: Self.line) == nil)
        // Only top-level members: "value" is inside the resource.
        #expect(OrderedJSON.member("value", in: Self.line) == nil)
    }

    @Test func stringPairsKeepTheirOrderAndUnescape() throws {
        let metadata = try #require(OrderedJSON.member("metadata", in: Self.line))
        let pairs = try #require(OrderedJSON.stringPairs(metadata))
        #expect(pairs.map(\.key) == ["z", "a", "m"])
        #expect(pairs.map(\.value) == ["1", #"two, "quoted""#, "{not} [json]"])
        #expect(OrderedJSON.stringPairs("{}")?.isEmpty == true)
        #expect(OrderedJSON.stringPairs(#"{ "k" : "é\u00e9" , "n" : "x" }"#)?.map(\.value) == ["éé", "x"])
    }

    @Test func whatIsNotAnObjectOfStringsIsRefused() {
        #expect(OrderedJSON.stringPairs(#"{"n":1}"#) == nil)          // a number is not a string
        #expect(OrderedJSON.stringPairs(#"["a","b"]"#) == nil)       // not an object
        #expect(OrderedJSON.member("a", in: "") == nil)
        #expect(OrderedJSON.member("a", in: #"{"a" "b"}"#) == nil)   // no colon
    }
}
