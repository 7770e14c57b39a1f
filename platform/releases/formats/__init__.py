"""The release's file formats, one module each: records (our JSON Lines, also the
WebQuest-style format), WebQA, WebVLN, and the datasheet."""
