// C adapter over toml++ (libtomlplusplus-dev): converts a parsed document
// into the plain C tree of toml_adapter.h once, so no C++ type crosses into
// the host's C code.
// The adapter's C API is exported (the tests call it); the rest of this file is compiled
// with -fvisibility=hidden where toml++ is compiled in (core/CMakeLists.txt), so toml++'s
// functions, vtables and type information stay inside libnsdyn instead of being over 400
// symbols the loader binds at every start.
#pragma GCC visibility push(default)
#include "toml_adapter.h"
#pragma GCC visibility pop

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <sys/stat.h>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

struct nsd_toml_doc {
    char *source;
    nsd_toml_node root;
};

namespace {

char *dup_string(std::string_view s) {
    char *p = static_cast<char *>(std::malloc(s.size() + 1));
    if (!p) std::abort();
    std::memcpy(p, s.data(), s.size());
    p[s.size()] = '\0';
    return p;
}

// The source text, to read a number's literal where toml++ rounded it.
struct source_text {
    std::string_view text;
    std::vector<size_t> line_start; // offset of each line (line 1 at [0])
    explicit source_text(std::string_view t) : text(t) {
        line_start.push_back(0);
        for (size_t i = 0; i < t.size(); ++i)
            if (t[i] == '\n') line_start.push_back(i + 1);
    }
    // The number literal written at (line, column), 1-based.
    std::string literal(size_t line, size_t column) const {
        if (line == 0 || column == 0 || line > line_start.size()) return {};
        size_t at = line_start[line - 1] + column - 1, end = at;
        while (end < text.size() && std::strchr("0123456789eE+-._", text[end]) && text[end]) ++end;
        return std::string(text.substr(std::min(at, text.size()), end - std::min(at, end)));
    }
};

// A float literal with a nonzero digit that toml++ read as 0: the number is
// below the smallest double. Reported at its position.
struct underflow {
    int line, column;
    std::string literal;
};

bool nonzero_mantissa(const std::string &lit) {
    for (char c : lit) {
        if (c == 'e' || c == 'E') break;
        if (c >= '1' && c <= '9') return true;
    }
    return false;
}

void set_position(nsd_toml_node &out, const toml::node &in, const char *source) {
    out.source = source;
    out.line = static_cast<int>(in.source().begin.line);
    out.column = static_cast<int>(in.source().begin.column);
}

void convert(nsd_toml_node &out, const toml::node &in, const char *source, const source_text &src);

void convert_table(nsd_toml_node &out, const toml::table &t, const char *source,
                   const source_text &src) {
    out.type = NSD_TOML_TABLE;
    out.n_items = t.size();
    out.items = static_cast<nsd_toml_node *>(std::calloc(t.size() ? t.size() : 1, sizeof(nsd_toml_node)));
    size_t i = 0;
    for (auto &&[k, v] : t) {
        nsd_toml_node &child = out.items[i++];
        convert(child, v, source, src);
        child.key = dup_string(k.str());
        // Position of a table entry: where its key is written.
        if (k.source().begin.line) {
            child.line = static_cast<int>(k.source().begin.line);
            child.column = static_cast<int>(k.source().begin.column);
        }
    }
    // toml++ keeps tables sorted by key; restore the order of the source.
    std::stable_sort(out.items, out.items + out.n_items,
                     [](const nsd_toml_node &a, const nsd_toml_node &b) {
                         return a.line != b.line ? a.line < b.line : a.column < b.column;
                     });
}

void convert(nsd_toml_node &out, const toml::node &in, const char *source, const source_text &src) {
    std::memset(&out, 0, sizeof out);
    set_position(out, in, source);
    if (auto t = in.as_table()) {
        convert_table(out, *t, source, src);
        set_position(out, in, source);
    } else if (auto a = in.as_array()) {
        out.type = NSD_TOML_ARRAY;
        out.n_items = a->size();
        out.items = static_cast<nsd_toml_node *>(std::calloc(a->size() ? a->size() : 1, sizeof(nsd_toml_node)));
        for (size_t i = 0; i < a->size(); ++i) convert(out.items[i], *a->get(i), source, src);
    } else if (auto s = in.as_string()) {
        out.type = NSD_TOML_STRING;
        out.str = dup_string(s->get());
    } else if (auto n = in.as_integer()) {
        out.type = NSD_TOML_INTEGER;
        out.integer = n->get();
        out.real = static_cast<double>(n->get());
    } else if (auto f = in.as_floating_point()) {
        out.type = NSD_TOML_FLOAT;
        out.real = f->get();
        if (out.real == 0.0) {
            std::string lit = src.literal(in.source().begin.line, in.source().begin.column);
            if (nonzero_mantissa(lit)) {
                nsd_toml_node_clear(&out);
                throw underflow{static_cast<int>(in.source().begin.line),
                                static_cast<int>(in.source().begin.column), lit};
            }
        }
    } else if (auto b = in.as_boolean()) {
        out.type = NSD_TOML_BOOLEAN;
        out.boolean = b->get() ? 1 : 0;
    } else {
        out.type = NSD_TOML_DATETIME;
        std::string text;
        if (in.is_date()) text = "date";
        else if (in.is_time()) text = "time";
        else text = "date-time";
        out.str = dup_string(text);
    }
}

nsd_toml_doc *finish(const toml::table &table, const char *source_name, std::string_view text) {
    auto *doc = static_cast<nsd_toml_doc *>(std::calloc(1, sizeof(nsd_toml_doc)));
    if (!doc) std::abort();
    doc->source = dup_string(source_name);
    source_text src(text);
    try {
        convert_table(doc->root, table, doc->source, src);
    } catch (...) {
        nsd_toml_node_clear(&doc->root);
        std::free(doc->source);
        std::free(doc);
        throw;
    }
    doc->root.source = doc->source;
    doc->root.line = 0; // the whole file: messages name the file only
    doc->root.column = 0;
    return doc;
}

void report(char *err, size_t err_len, const char *source, const toml::parse_error &e,
            std::string_view text) {
    std::string what(e.description());
    // toml++ refuses a float beyond the range of a double with "'1e1000'
    // could not be interpreted as a value": not a syntax error, say what it is.
    size_t q1 = what.find('\''), q2 = q1 == std::string::npos ? q1 : what.find('\'', q1 + 1);
    if (what.find("floating-point") != std::string::npos && q2 != std::string::npos) {
        std::string token = what.substr(q1 + 1, q2 - q1 - 1);
        char *end = nullptr;
        errno = 0;
        double x = std::strtod(token.c_str(), &end);
        if (!token.empty() && end && *end == '\0' && errno == ERANGE && std::isinf(x)) {
            // toml++ quotes the digits without their sign: take it from the source.
            source_text src(text);
            std::string line_text;
            if (e.source().begin.line >= 1 && e.source().begin.line <= src.line_start.size()) {
                size_t from = src.line_start[e.source().begin.line - 1];
                size_t to = text.find('\n', from);
                line_text = std::string(text.substr(from, to == std::string_view::npos ? text.size() - from : to - from));
            }
            // Point at the number, sign included.
            unsigned column = static_cast<unsigned>(e.source().begin.column);
            size_t pos = line_text.find(token);
            if (pos != std::string::npos) {
                if (pos > 0 && (line_text[pos - 1] == '-' || line_text[pos - 1] == '+'))
                    token.insert(token.begin(), line_text[--pos]);
                column = static_cast<unsigned>(pos + 1);
            }
            std::snprintf(err, err_len,
                          "%s:%u:%u: the number %s is out of the range of a double (largest "
                          "magnitude about 1.8e308)",
                          source, static_cast<unsigned>(e.source().begin.line), column,
                          token.c_str());
            return;
        }
    }
    std::snprintf(err, err_len, "%s:%u:%u: TOML syntax error: %s", source,
                  static_cast<unsigned>(e.source().begin.line),
                  static_cast<unsigned>(e.source().begin.column), what.c_str());
}

} // namespace

extern "C" {

nsd_toml_doc *nsd_toml_parse_file(const char *path, char *err, size_t err_len) {
    /* the command line's words for the same trouble (cli_args.c
     * nsd_cli_check_file), so an embedding program reads what it prints */
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        std::snprintf(err, err_len, "config '%s' is a directory, not a file", path);
        return nullptr;
    }
    FILE *f = std::fopen(path, "rb");
    if (!f) {
        std::snprintf(err, err_len, "config '%s': %s", path, std::strerror(errno));
        return nullptr;
    }
    std::string text;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
    return nsd_toml_parse_string(text.c_str(), path, err, err_len);
}

nsd_toml_doc *nsd_toml_parse_string(const char *text, const char *source_name, char *err,
                                    size_t err_len) {
    try {
        toml::table t = toml::parse(std::string_view(text), std::string_view(source_name));
        return finish(t, source_name, std::string_view(text));
    } catch (const toml::parse_error &e) {
        report(err, err_len, source_name, e, std::string_view(text));
        return nullptr;
    } catch (const underflow &u) {
        std::snprintf(err, err_len,
                      "%s:%d:%d: the number %s is too small for a double: it would be read as 0 "
                      "(smallest magnitude about 4.9e-324)",
                      source_name, u.line, u.column, u.literal.c_str());
        return nullptr;
    } catch (const std::exception &e) {
        std::snprintf(err, err_len, "%s: cannot parse config: %s", source_name, e.what());
        return nullptr;
    }
}

void nsd_toml_node_clear(nsd_toml_node *node) {
    if (!node) return;
    for (size_t i = 0; i < node->n_items; ++i) nsd_toml_node_clear(&node->items[i]);
    std::free(node->items);
    std::free(node->key);
    std::free(node->str);
    std::memset(node, 0, sizeof *node);
}

void nsd_toml_node_copy(nsd_toml_node *dst, const nsd_toml_node *src) {
    *dst = *src;
    dst->key = src->key ? dup_string(src->key) : nullptr;
    dst->str = src->str ? dup_string(src->str) : nullptr;
    if (src->n_items || src->items) {
        dst->items = static_cast<nsd_toml_node *>(std::calloc(src->n_items ? src->n_items : 1, sizeof(nsd_toml_node)));
        for (size_t i = 0; i < src->n_items; ++i) nsd_toml_node_copy(&dst->items[i], &src->items[i]);
    }
}

void nsd_toml_free(nsd_toml_doc *doc) {
    if (!doc) return;
    nsd_toml_node_clear(&doc->root);
    std::free(doc->source);
    std::free(doc);
}

nsd_toml_node *nsd_toml_root(nsd_toml_doc *doc) { return &doc->root; }

const nsd_toml_node *nsd_toml_get(const nsd_toml_node *table, const char *key) {
    if (!table || table->type != NSD_TOML_TABLE) return nullptr;
    for (size_t i = 0; i < table->n_items; ++i)
        if (std::strcmp(table->items[i].key, key) == 0) return &table->items[i];
    return nullptr;
}

void nsd_toml_table_remove(nsd_toml_node *table, const char *key) {
    for (size_t i = 0; i < table->n_items; ++i) {
        if (std::strcmp(table->items[i].key, key) == 0) {
            nsd_toml_node_clear(&table->items[i]);
            std::memmove(&table->items[i], &table->items[i + 1],
                         (table->n_items - i - 1) * sizeof(nsd_toml_node));
            table->n_items--;
            return;
        }
    }
}

void nsd_toml_table_set(nsd_toml_node *table, const char *key, const nsd_toml_node *value) {
    nsd_toml_table_remove(table, key);
    auto *items = static_cast<nsd_toml_node *>(
        std::realloc(table->items, (table->n_items + 1) * sizeof(nsd_toml_node)));
    if (!items) std::abort();
    table->items = items;
    nsd_toml_node *slot = &table->items[table->n_items++];
    nsd_toml_node_copy(slot, value);
    std::free(slot->key);
    slot->key = dup_string(key);
}

const char *nsd_toml_type_name(nsd_toml_type type) {
    switch (type) {
    case NSD_TOML_TABLE: return "a table";
    case NSD_TOML_ARRAY: return "an array";
    case NSD_TOML_STRING: return "a string";
    case NSD_TOML_INTEGER: return "an integer";
    case NSD_TOML_FLOAT: return "a float";
    case NSD_TOML_BOOLEAN: return "a boolean";
    case NSD_TOML_DATETIME: return "a date/time";
    }
    return "a value";
}

} // extern "C"
