; Markdown: headings, nested by section.

(section (atx_heading heading_content: (_) @name) @signature) @definition.heading
(section (setext_heading heading_content: (_) @name) @signature) @definition.heading
