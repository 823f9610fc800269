/* Material's storage helpers, as in partials/javascripts/base.html, with the
   scope read from the script tag's data-md-scope attribute. */
__md_scope=new URL(document.currentScript.dataset.mdScope,location),__md_hash=e=>[...e].reduce(((e,_)=>(e<<5)-e+_.charCodeAt(0)),0),__md_get=(e,_=localStorage,t=__md_scope)=>JSON.parse(_.getItem(t.pathname+"."+e)),__md_set=(e,_,t=localStorage,a=__md_scope)=>{try{t.setItem(a.pathname+"."+e,JSON.stringify(_))}catch(e){}}
