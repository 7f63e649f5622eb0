# Sources of the base layer: what every module uses and none owns
# (buffers, UTF-8 text, timestamps, atomic report files, error codes).
list(APPEND TATTLE_SOURCES
  base/buffer.c
  base/text.c
  base/timestamp.c
  base/utf8.c
  base/report_file.c
  base/error.c
  base/name_index.c
  base/hash.c
)
