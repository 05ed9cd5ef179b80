; Ruby: classes, modules, `class << self` (named `self`), methods, singleton methods and constants.

(class name: (_) @name superclass: (_) body: (_) @body) @definition.class
(class name: (_) @name body: (_) @body) @definition.class
(class name: (_) @name) @definition.class
(module name: (_) @name body: (_) @body) @definition.module
(module name: (_) @name) @definition.module
(singleton_class value: (_) @name body: (_) @body) @definition.class
(singleton_class value: (_) @name) @definition.class
(method name: (_) @name parameters: (_)) @definition.method
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(assignment left: (constant) @name) @definition.const
