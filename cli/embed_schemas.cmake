# Writes OUTPUT, a C file holding every SCHEMA_DIR/*.json as a string:
# tattle__embedded_schemas[] = {{"report.schema.json", "..."}, ...}, sorted.
# Each byte is written as an octal escape, so any content is a valid string.
set(content "/* Generated from schemas/ by cli/embed_schemas.cmake. Do not edit. */\n")
string(APPEND content "#include \"cli/schema.h\"\n\n")
string(APPEND content "const struct tattle__embedded_schema tattle__embedded_schemas[] = {\n")
file(GLOB SCHEMAS ${SCHEMA_DIR}/*.json)
list(SORT SCHEMAS)
set(count 0)
foreach(path IN LISTS SCHEMAS)
  get_filename_component(name ${path} NAME)
  file(READ ${path} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${hex}")
  # A hex escape swallows the hex digits after it; a string break after
  # every escape keeps each one to its two digits.
  string(REPLACE "\\x" "\"\"\\x" escaped "${escaped}")
  string(APPEND content "    {\"${name}\", \"${escaped}\"},\n")
  math(EXPR count "${count} + 1")
endforeach()
string(APPEND content "};\n")
string(APPEND content "const size_t tattle__embedded_schema_count = ${count};\n")
file(WRITE ${OUTPUT}.tmp "${content}")
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
