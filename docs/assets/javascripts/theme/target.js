/* Material's open-the-tab-named-in-the-URL-hash step, as in partials/javascripts/content.html. */
var target=document.getElementById(location.hash.slice(1));target&&target.name&&(target.checked=target.name.startsWith("__tabbed_"))
