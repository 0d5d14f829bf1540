/*
 * sax_floor: the physical floor for converting an Apple Health export.xml.
 *
 * It does the least work any streaming converter must do: read the file and tokenise every element with
 * libxml2's SAX2 push parser, doing nothing with what it sees. A converter cannot be faster than this by more
 * than the cost of its own XML parsing choices, so run.sh reports every row as a ratio to this one.
 *
 *   cc -O2 $(pkg-config --cflags libxml-2.0) sax_floor.c -o sax_floor $(pkg-config --libs libxml-2.0)
 *   ./sax_floor export.xml        (or - for stdin)
 *
 * Prints the number of start elements (so the parse cannot be optimised away and can be checked against
 * counts.json); exits 1 on a parse error, 2 when the file cannot be read.
 */
#include <libxml/parser.h>
#include <stdio.h>
#include <string.h>

enum { CHUNK = 256 * 1024 };   /* the read size a converter would plausibly use */

static unsigned long elements;

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                     int nb_namespaces, const xmlChar **namespaces, int nb_attributes, int nb_defaulted,
                     const xmlChar **attributes) {
    (void)ctx; (void)localname; (void)prefix; (void)uri; (void)nb_namespaces; (void)namespaces;
    (void)nb_attributes; (void)nb_defaulted; (void)attributes;
    elements++;
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri) {
    (void)ctx; (void)localname; (void)prefix; (void)uri;
}

static void on_text(void *ctx, const xmlChar *ch, int len) {
    (void)ctx; (void)ch; (void)len;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s export.xml|-\n", argv[0]);
        return 2;
    }
    FILE *in = strcmp(argv[1], "-") == 0 ? stdin : fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 2;
    }

    /* Start from the default SAX2 handler (it still parses the internal DTD subset, as a real parser must)
     * and replace only the per-node callbacks with empty ones. ignorableWhitespace is the same kind of
     * callback as characters: libxml2 reports the blanks between elements through it once a DTD declares
     * element content. */
    xmlSAXHandler h;
    memset(&h, 0, sizeof h);
    xmlSAXVersion(&h, 2);
    h.startElementNs = on_start;
    h.endElementNs = on_end;
    h.characters = on_text;
    h.ignorableWhitespace = on_text;
    h.initialized = XML_SAX2_MAGIC;

    static char buf[CHUNK];
    size_t n = fread(buf, 1, 4, in);   /* the first bytes let libxml2 detect the encoding */
    xmlParserCtxtPtr ctxt = xmlCreatePushParserCtxt(&h, NULL, buf, (int)n, argv[1]);
    if (!ctxt) {
        fprintf(stderr, "cannot create parser\n");
        return 2;
    }
    /* No XML_PARSE_NOENT: entities are not substituted (only the predefined ones and character references
     * in attribute values are expanded, which every converter needs). NONET: never fetch anything. HUGE:
     * lift the size limits that real multi-GB exports would hit. COMPACT: as a tree-free converter would. */
    xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_HUGE | XML_PARSE_COMPACT);

    int rc = 0;
    while (rc == 0 && (n = fread(buf, 1, CHUNK, in)) > 0)
        rc = xmlParseChunk(ctxt, buf, (int)n, 0);
    if (rc == 0)
        rc = xmlParseChunk(ctxt, NULL, 0, 1);
    int read_error = ferror(in);
    int well_formed = ctxt->wellFormed;

    if (ctxt->myDoc)   /* the default startDocument handler made a document to hold the DTD */
        xmlFreeDoc(ctxt->myDoc);
    xmlFreeParserCtxt(ctxt);
    if (in != stdin)
        fclose(in);

    if (read_error) {
        perror(argv[1]);
        return 2;
    }
    if (rc != 0 || !well_formed) {
        fprintf(stderr, "%s: not well-formed (libxml2 error %d)\n", argv[1], rc);
        return 1;
    }
    printf("%lu\n", elements);
    return 0;
}
